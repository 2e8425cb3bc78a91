import { SecretsManagerKeyStore } from '../../adapters/secrets-manager-key-store.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** The realtime signing keys, in their secret. */
export const realtimeKeys = ({
  secretsManager,
  REALTIME_KEYS_SECRET_ARN,
}: Pick<AdapterSources, 'secretsManager' | 'REALTIME_KEYS_SECRET_ARN'>) =>
  new SecretsManagerKeyStore(REALTIME_KEYS_SECRET_ARN, { client: secretsManager() });
