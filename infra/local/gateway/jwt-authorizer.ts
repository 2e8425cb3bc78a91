import { errors, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { UnauthorizedError } from '#shared/http/http-errors.ts';

export interface JwtAuthorizerConfig {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly publicKey: CryptoKey;
}

/** API Gateway passes claims to the function as strings. */
export type EventClaims = Record<string, string>;

export function toEventClaims(payload: JWTPayload): EventClaims {
  const claims: EventClaims = {};
  for (const [name, value] of Object.entries(payload)) {
    if (typeof value === 'string') claims[name] = value;
    else if (Array.isArray(value)) claims[name] = `[${value.map(String).join(' ')}]`;
    else if (typeof value === 'object' && value !== null) claims[name] = JSON.stringify(value);
    else claims[name] = String(value);
  }
  return claims;
}

function reasonFor(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'the token does not have a valid issuer';
    if (error.claim === 'aud') return 'the token does not have a valid audience';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token does not have a valid ${error.claim} claim`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature is invalid';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with RS256';
  return 'the token is malformed';
}

/** How many verified tokens the authorizer remembers; past that it starts again. */
const REMEMBERED_TOKENS = 1000;

/**
 * Does what API Gateway's HTTP API JWT authorizer does before it invokes a function: read the
 * Authorization header (with or without `Bearer `), check an RS256 signature, issuer,
 * audience, `exp`, `nbf` and `iat`, and refuse with 401 `{"message":"Unauthorized"}`.
 * A token whose signature and claims were checked once is remembered (a client sends the
 * same one for an hour): later requests only check its time claims again, and one that no
 * longer passes them is checked whole, so it is refused for the same reason as ever.
 */
export function createJwtAuthorizer(config: JwtAuthorizerConfig) {
  const verified = new Map<string, { claims: EventClaims; exp: number; nbf?: number }>();
  return async (authorization: string | undefined): Promise<EventClaims> => {
    if (authorization === undefined || authorization.trim() === '') {
      throw new UnauthorizedError('the token is missing');
    }
    const token = authorization.trim().replace(/^bearer\s+/i, '');
    const known = verified.get(token);
    // jose's own tests, with no clock tolerance: expired at `exp`, valid from `nbf`.
    const now = Math.floor(Date.now() / 1000);
    if (known !== undefined && known.exp > now && (known.nbf ?? now) <= now) return known.claims;
    try {
      const { payload } = await jwtVerify(token, config.publicKey, {
        issuer: config.issuer,
        audience: [...config.audiences],
        algorithms: ['RS256'],
        requiredClaims: ['exp'],
      });
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + 1) {
        throw new UnauthorizedError('the token was issued in the future');
      }
      const claims = toEventClaims(payload);
      if (verified.size >= REMEMBERED_TOKENS) verified.clear();
      verified.set(token, {
        claims,
        exp: payload.exp ?? 0,
        ...(payload.nbf === undefined ? {} : { nbf: payload.nbf }),
      });
      return claims;
    } catch (error) {
      if (error instanceof UnauthorizedError) throw error;
      throw new UnauthorizedError(reasonFor(error));
    }
  };
}
