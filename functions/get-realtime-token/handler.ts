import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { issueRealtimeToken } from '#shared/realtime/issue-realtime-token.ts';
import { recordMetric, refusalNotRecorded } from '#shared/observability/metrics.ts';
import { getRealtimeTokenRequest } from '#shared/realtime/api/realtime-token.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { secretsManagerClient } from '#shared/storage/aws/secrets-manager.ts';
import { dealRoles } from '#shared/groups/adapters/dynamo-deal-roles.ts';
import { realtimeKeys } from '#shared/realtime/adapters/secrets-manager-key-store.ts';
import { userItems } from '#shared/removal/adapters/dynamo-user-items.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { getRealtimeTokenFunction } from './function.ts';

/** POST /api/v1/auth/get-realtime-token: a signed token for the caller's deal rooms. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealRoles' | 'realtimeKeys' | 'userItems' | 'accessTrail'>,
  settings: Pick<
    HandlerSettings,
    'USER_ID_CLAIM' | 'STAGE' | 'REALTIME_ISSUER' | 'REALTIME_AUDIENCE' | 'REALTIME_TOKEN_SECONDS'
  >,
) => {
  const config = {
    stage: settings.STAGE,
    issuer: settings.REALTIME_ISSUER,
    audience: settings.REALTIME_AUDIENCE,
    tokenSeconds: settings.REALTIME_TOKEN_SECONDS,
  };
  const ports = { ...adapters, refusalNotRecorded };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(getRealtimeTokenRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const roomIds = event.input.body.room_ids;
      const requester = requesterOf(event);
      const token = await issueRealtimeToken(ports, config, { requester, roomIds });
      recordMetric('RealtimeTokensIssued');
      recordMetric('RoomsPerToken', new Set(roomIds).size);
      return jsonResponse(200, { token }, { 'cache-control': 'no-store' });
    });
};

export const handler = lambdaEntry(getRealtimeTokenFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, secretsManager: secretsManagerClient },
      { dealRoles, realtimeKeys, userItems, accessTrail },
    ),
    env,
  ),
);
