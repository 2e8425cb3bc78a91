import { optionalEnv, requiredEnv } from '../config.ts';
import { FileKeyStore } from '../../infra/local/file-key-store.ts';
import type { RealtimeKeyStore } from './realtime-key-store.ts';
import { SecretsManagerKeyStore } from '../adapters/secrets-manager-key-store.ts';

/** The local stage names a key file (REALTIME_KEYS_FILE); a deployed one a secret. */
export function keyStoreFromEnv(): RealtimeKeyStore {
  const file = optionalEnv('REALTIME_KEYS_FILE');
  return file === undefined
    ? new SecretsManagerKeyStore(requiredEnv('REALTIME_KEYS_SECRET_ARN'))
    : new FileKeyStore(file);
}
