import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
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

const imported = new Map<string, ReturnType<typeof importJWK>>();

/** The private key, imported once per container. */
const privateKeyOf = (key: RealtimeSigningKey) => {
  let found = imported.get(key.kid);
  if (found === undefined) {
    found = importJWK(key.privateJwk, 'ES256');
    // A failed import is tried again next time, not remembered.
    found.catch(() => imported.delete(key.kid));
    imported.set(key.kid, found);
  }
  return found;
};

/** An ES256 JWT, signed by the key active at `now`, with the kid that names it. */
export async function signRealtimeToken(
  keys: RealtimeKeySet,
  now: Date,
  claims: RealtimeClaims,
): Promise<string> {
  const key = signingKeyAt(keys, now);
  if (key === undefined) throw new Error('No realtime signing key is active yet');
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ rooms: claims.rooms })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.subject)
    .setIssuedAt(issuedAt)
    .setNotBefore(issuedAt)
    .setExpirationTime(issuedAt + claims.tokenSeconds)
    .setJti(randomUUID())
    .sign(await privateKeyOf(key));
}
