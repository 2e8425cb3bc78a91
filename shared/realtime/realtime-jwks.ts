import type { JWK } from 'jose';
import { publicJwkOf, publishedKeysAt } from './realtime-key-set.ts';
import type { RealtimeKeyStore } from './realtime-key-store.ts';

/** GET /api/v1/auth/realtime-jwks.json: the public keys a realtime server verifies with. */
export async function realtimeJwks(
  ports: { readonly keys: Pick<RealtimeKeyStore, 'load'>; readonly now?: () => Date },
  tokenSeconds: number,
): Promise<{ keys: JWK[] }> {
  const set = await ports.keys.load();
  return { keys: publishedKeysAt(set, ports.now?.() ?? new Date(), tokenSeconds).map(publicJwkOf) };
}
