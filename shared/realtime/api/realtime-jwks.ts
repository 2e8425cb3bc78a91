import * as z from 'zod';

/** One public verification key: an ES256 P-256 key, these fields and no others. */
const RealtimePublicKeySchema = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: z.string(),
    y: z.string(),
    kid: z.string().describe('The `kid` in the header of the tokens it verifies'),
    alg: z.literal('ES256'),
    use: z.literal('sig'),
  })
  .meta({ id: 'RealtimePublicKey' });

/** GET /api/v1/auth/realtime-jwks.json: RFC 7517's JWK Set. */
export const RealtimeJwksSchema = z
  .object({ keys: z.array(RealtimePublicKeySchema) })
  .meta({ id: 'RealtimeJwks' });
