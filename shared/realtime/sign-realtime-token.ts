import { createPrivateKey, type KeyObject, randomUUID, sign } from 'node:crypto';
import type { RealtimeKeySet, RealtimeSigningKey } from './realtime-key-set.ts';
import { signingKeyAt } from './realtime-key-set.ts';

/** What a room lets its holder do: viewers read; editors read and write. */
export type RoomPermission = 'read' | 'write';

export interface RealtimeClaims {
  readonly issuer: string;
  readonly audience: string;
  readonly subject: string;
  readonly tokenSeconds: number;
  /** Room id → what the holder may do there; empty for a general token. */
  readonly rooms: Readonly<Record<string, readonly RoomPermission[]>>;
}

const imported = new Map<string, KeyObject>();

/** The private key, imported once per container (a key that fails to import throws each time). */
function privateKeyOf(key: RealtimeSigningKey): KeyObject {
  let found = imported.get(key.kid);
  if (found === undefined) {
    found = createPrivateKey({ key: key.privateJwk, format: 'jwk' });
    imported.set(key.kid, found);
  }
  return found;
}

const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * An ES256 JWT (RFC 7515's compact form), signed by the key active at `now`, with the kid
 * that names it. Signed with node:crypto rather than jose: jose signs through WebCrypto, whose
 * every signature is a job on libuv's thread pool and whose claims builder clones the claims,
 * and this is the hot path of the token route (docs/benchmarks.md). The signature is the same
 * ECDSA P-256/SHA-256 in the JWS (IEEE P1363) encoding; jose verifies it in the tests.
 */
export function signRealtimeToken(keys: RealtimeKeySet, now: Date, claims: RealtimeClaims): string {
  const key = signingKeyAt(keys, now);
  if (key === undefined) throw new Error('No realtime signing key is active yet');
  const issuedAt = Math.floor(now.getTime() / 1000);
  const signingInput = `${segment({ alg: 'ES256', kid: key.kid, typ: 'JWT' })}.${segment({
    rooms: claims.rooms,
    iss: claims.issuer,
    aud: claims.audience,
    sub: claims.subject,
    iat: issuedAt,
    nbf: issuedAt,
    exp: issuedAt + claims.tokenSeconds,
    jti: randomUUID(),
  })}`;
  const signature = sign('sha256', Buffer.from(signingInput), {
    key: privateKeyOf(key),
    dsaEncoding: 'ieee-p1363',
  });
  return `${signingInput}.${signature.toString('base64url')}`;
}
