import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { realtimeJwks } from '#shared/realtime/realtime-jwks.ts';
import { secretsManagerClient } from '#shared/storage/aws/secrets-manager.ts';
import { realtimeKeys } from '#shared/realtime/adapters/secrets-manager-key-store.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import { realtimeJwksFunction } from './function.ts';

/**
 * GET /api/v1/auth/realtime-jwks.json, without auth: the realtime signing keys' public halves.
 * Verifiers may cache it for five minutes; a new key is published before it signs.
 */
export const createHandler = (adapters: Pick<ServiceAdapters, 'realtimeKeys'>) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .handler(async () =>
      jsonResponse(200, await realtimeJwks(adapters), {
        'cache-control': 'public, max-age=300',
      }),
    );

export const handler = lambdaEntry(realtimeJwksFunction.variables, (env) =>
  createHandler(
    composeAdapters({ ...env, secretsManager: secretsManagerClient }, { realtimeKeys }),
  ),
);
