import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { requiredEnv } from '#shared/config.ts';
import { logger } from '#shared/logger.ts';
import { SecretsManagerKeyStore } from '#shared/adapters/secrets-manager-key-store.ts';

const store = new SecretsManagerKeyStore(requiredEnv('REALTIME_KEYS_SECRET_ARN'));

/**
 * The stack's custom resource: at deploy time, fills the realtime key secret with a first
 * ES256 key unless it already holds a key set. Never replaces keys; rotation is the CLI's.
 */
export const handler = async (event: CloudFormationCustomResourceEvent) => {
  if (event.RequestType !== 'Delete') {
    const set = await store.ensure();
    logger.info('Realtime key set ready', { kids: set.keys.map((key) => key.kid) });
  }
  return { PhysicalResourceId: 'realtime-signing-keys' };
};
