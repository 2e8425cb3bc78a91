import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import * as z from 'zod';

/**
 * The realtime signing keys, oldest first. The newest key whose activation has come signs;
 * older keys stay published while tokens they signed may still be valid, and a key not yet
 * active is published ahead of its use, so every verifier knows it before any token does.
 */
const PublicJwkSchema = z.strictObject({
  kty: z.literal('EC'),
  crv: z.literal('P-256'),
  x: z.string().min(1),
  y: z.string().min(1),
});

const SigningKeySchema = z.object({
  kid: z.string().min(1),
  activatesAt: z.iso.datetime(),
  privateJwk: PublicJwkSchema.extend({ d: z.string().min(1) }),
  // Strict: a public key that carried `d` (a hand-edited secret) is no key set at all.
  publicJwk: PublicJwkSchema,
});

const RealtimeKeySetSchema = z.object({ keys: z.array(SigningKeySchema) });

export type RealtimeSigningKey = z.infer<typeof SigningKeySchema>;
export type RealtimeKeySet = z.infer<typeof RealtimeKeySetSchema>;

/** A stored key set, or undefined when the text is not one (a secret's first placeholder). */
export function parseKeySet(text: string): RealtimeKeySet | undefined {
  try {
    const parsed = RealtimeKeySetSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.keys.length > 0 ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const activation = (key: RealtimeSigningKey) => Date.parse(key.activatesAt);

/** The key that signs at `now`: the newest one already active. */
export function signingKeyAt(set: RealtimeKeySet, now: Date): RealtimeSigningKey | undefined {
  return set.keys.filter((key) => activation(key) <= now.getTime()).at(-1);
}

/**
 * The keys a verifier needs at `now`: every key not yet active, the signing key, and each
 * older key until its successor has been active longer than a token lives (plus a minute for
 * clocks that disagree), after which nothing it signed is still valid.
 */
export function publishedKeysAt(
  set: RealtimeKeySet,
  now: Date,
  tokenSeconds: number,
): RealtimeSigningKey[] {
  const graceMs = (tokenSeconds + 60) * 1000;
  return set.keys.filter((_key, i) => {
    const successor = set.keys[i + 1];
    return successor === undefined || now.getTime() < activation(successor) + graceMs;
  });
}

/** The public half, as a JWKS publishes it: these fields and no others. */
export const publicJwkOf = (key: RealtimeSigningKey): JWK => ({
  kty: key.publicJwk.kty,
  crv: key.publicJwk.crv,
  x: key.publicJwk.x,
  y: key.publicJwk.y,
  kid: key.kid,
  alg: 'ES256',
  use: 'sig',
});

/**
 * A new ES256 key appended to the set, to sign from `activateInSeconds` after `now`; keys no
 * longer published are dropped (nothing they signed is still valid).
 */
export async function withNewKey(
  set: RealtimeKeySet,
  now: Date,
  options: { readonly activateInSeconds: number; readonly tokenSeconds: number },
): Promise<RealtimeKeySet> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  const key = SigningKeySchema.parse({
    kid: await calculateJwkThumbprint(publicJwk),
    activatesAt: new Date(now.getTime() + options.activateInSeconds * 1000).toISOString(),
    privateJwk,
    publicJwk,
  });
  const kept = publishedKeysAt(set, now, options.tokenSeconds);
  return { keys: [...kept, key] };
}
