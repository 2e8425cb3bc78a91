import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import { DynamoDealRoles } from '#shared/adapters/dynamo-deal-roles.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { issueRealtimeToken } from '#shared/realtime/issue-realtime-token.ts';
import { keyStoreFromEnv } from '#shared/realtime/key-store-from-env.ts';
import { realtimeTokenConfig } from '#shared/realtime/realtime-config.ts';
import { getRealtimeTokenRequest } from '#shared/schemas/realtime-token.ts';

const config = realtimeTokenConfig();
const ports = {
  roles: new DynamoDealRoles(documentClient(), requiredEnv('TABLE_NAME')),
  keys: keyStoreFromEnv(),
};

/** POST /api/v1/auth/get-realtime-token: a signed token for the caller's deal rooms. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(getRealtimeTokenRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const token = await issueRealtimeToken(ports, config, {
      userId,
      roomIds: input.body.room_ids,
    });
    return jsonResponse(200, { token }, { 'cache-control': 'no-store' });
  });
