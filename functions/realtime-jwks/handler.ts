import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { keyStoreFromEnv } from '#shared/realtime/key-store-from-env.ts';
import { realtimeJwks } from '#shared/realtime/realtime-jwks.ts';

const ports = { keys: keyStoreFromEnv() };

/**
 * GET /api/v1/auth/realtime-jwks.json, without auth: the realtime signing keys' public halves.
 * Verifiers may cache it for five minutes; a new key is published before it signs.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .handler(async () =>
    jsonResponse(200, await realtimeJwks(ports), {
      'cache-control': 'public, max-age=300',
    }),
  );
