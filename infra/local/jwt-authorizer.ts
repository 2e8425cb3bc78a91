import { errors, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { UnauthorizedError } from '#shared/http/http-errors.ts';

export interface JwtAuthorizerConfig {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly publicKey: CryptoKey;
}

/** API Gateway passes claims to the function as strings. */
export type EventClaims = Record<string, string>;

function toEventClaims(payload: JWTPayload): EventClaims {
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

/**
 * Does what API Gateway's HTTP API JWT authorizer does before it invokes a function: read the
 * Authorization header (with or without `Bearer `), check an RS256 signature, issuer,
 * audience, `exp`, `nbf` and `iat`, and refuse with 401 `{"message":"Unauthorized"}`.
 */
export function createJwtAuthorizer(config: JwtAuthorizerConfig) {
  return async (authorization: string | undefined): Promise<EventClaims> => {
    if (authorization === undefined || authorization.trim() === '') {
      throw new UnauthorizedError('the token is missing');
    }
    const token = authorization.trim().replace(/^bearer\s+/i, '');
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
      return toEventClaims(payload);
    } catch (error) {
      if (error instanceof UnauthorizedError) throw error;
      throw new UnauthorizedError(reasonFor(error));
    }
  };
}
