import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import { secretsManagerClient } from '#shared/storage/aws/secrets-manager.ts';
import { realtimeKeys } from '#shared/realtime/adapters/secrets-manager-key-store.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import { initRealtimeKeysFunction } from './function.ts';

/**
 * The stack's custom resource: at deploy time, fills the realtime key secret with a first
 * ES256 key unless it already holds a key set. Never replaces keys; rotation is the CLI's.
 * It runs only on a deployed stage (the local stage makes its key file on first use).
 */
export const handler = lambdaEntry(initRealtimeKeysFunction.variables, (env) => {
  const { realtimeKeys: store } = composeAdapters(
    { ...env, secretsManager: secretsManagerClient },
    { realtimeKeys },
  );
  return async (event: CloudFormationCustomResourceEvent, _context: unknown) => {
    if (event.RequestType !== 'Delete') {
      const set = await store.ensure();
      logger.info('Realtime key set ready', { kids: set.keys.map((key) => key.kid) });
    }
    return { PhysicalResourceId: 'realtime-signing-keys' };
  };
});
