import { errors, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { UnauthorizedError } from '#shared/http/http-errors.ts';

export interface JwtAuthorizerConfig {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly publicKey: CryptoKey;
}

/** API Gateway passes claims to the function as strings. */
export type EventClaims = Record<string, string>;

export const toEventClaims = (payload: JWTPayload): EventClaims =>
  Object.fromEntries(
    Object.entries(payload).map(([name, value]) => [
      name,
      // A number, boolean or object as its JSON; an array as API Gateway lists it.
      typeof value === 'string'
        ? value
        : Array.isArray(value)
          ? `[${value.map(String).join(' ')}]`
          : JSON.stringify(value),
    ]),
  );

function reasonFor(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    const named = { iss: 'have a valid issuer', aud: 'have a valid audience' }[error.claim];
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token does not ${named ?? `have a valid ${error.claim} claim`}`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with RS256';
  return 'the token is malformed';
}

/** How many verified tokens the authorizer remembers; past that it starts again. */
const REMEMBERED_TOKENS = 1000;

/**
 * API Gateway's HTTP API JWT authorizer: the Authorization header (`Bearer ` or not), RS256,
 * issuer, audience, `exp`, `nbf` and `iat`, else 401 `{"message":"Unauthorized"}`. A verified
 * token is remembered: later only its time claims are checked (one that fails them is checked
 * whole, and so refused for the same reason as ever).
 */
export function createJwtAuthorizer(config: JwtAuthorizerConfig) {
  const verified = new Map<string, { claims: EventClaims; exp: number; nbf: number }>();
  const verify = async (token: string) => {
    const { payload } = await jwtVerify(token, config.publicKey, {
      ...{ issuer: config.issuer, audience: [...config.audiences] },
      ...{ algorithms: ['RS256'], requiredClaims: ['exp'] },
    });
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + 1) {
      throw new UnauthorizedError('the token was issued in the future');
    }
    const claims = toEventClaims(payload);
    if (verified.size >= REMEMBERED_TOKENS) verified.clear();
    verified.set(token, { claims, exp: payload.exp ?? 0, nbf: payload.nbf ?? 0 });
    return claims;
  };
  return async (authorization: string | undefined): Promise<EventClaims> => {
    const token = (authorization ?? '').trim().replace(/^bearer\s+/i, '');
    if (token === '') throw new UnauthorizedError('the token is missing');
    const known = verified.get(token);
    // As jose checks, with no clock tolerance: expired at `exp`, valid from `nbf`.
    const now = Math.floor(Date.now() / 1000);
    if (known !== undefined && known.exp > now && known.nbf <= now) return known.claims;
    try {
      return await verify(token);
    } catch (error) {
      throw error instanceof UnauthorizedError ? error : new UnauthorizedError(reasonFor(error));
    }
  };
}
