import type { JWK } from 'jose';
import { MAX_REALTIME_TOKEN_SECONDS } from './realtime-config.ts';
import { publicJwkOf, publishedKeysAt } from './realtime-key-set.ts';
import type { RealtimeKeyStore } from './realtime-key-store.ts';

/**
 * GET /api/v1/auth/realtime-jwks.json: the public keys a realtime server verifies with. An
 * old key stays as long as a token of the longest allowed lifetime may live, so lowering the
 * lifetime on a redeploy never strands tokens issued before it.
 */
export async function realtimeJwks(ports: {
  readonly realtimeKeys: Pick<RealtimeKeyStore, 'load'>;
  readonly now?: () => Date;
}): Promise<{ keys: JWK[] }> {
  const set = await ports.realtimeKeys.load();
  const now = ports.now?.() ?? new Date();
  return { keys: publishedKeysAt(set, now, MAX_REALTIME_TOKEN_SECONDS).map(publicJwkOf) };
}
