import middy from '@middy/core';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { toUserUsageBody } from '#shared/usage/api/user-usage.ts';
import { userUsage } from '#shared/usage/user-usage.ts';
import { usage } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import { type ServiceAdapters, storageLimitsOf } from '#shared/wiring/service-adapters.ts';
import { getUserUsageFunction } from './function.ts';
import type { HandlerSettings, StorageLimitSetting } from '#shared/config/environment.ts';

/** GET /api/v1/user/me/usage (extension): the caller's usage against their storage limits. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'usage'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | StorageLimitSetting>,
) => {
  const ports = { ...adapters, limits: storageLimitsOf(settings) };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest({}, settings))
    .handler<ApiEvent, ApiResult>(async ({ userId }) =>
      jsonResponse(200, toUserUsageBody(await userUsage(ports, userId))),
    );
};

export const handler = lambdaEntry(getUserUsageFunction.variables, (env) =>
  createHandler(composeAdapters({ ...env, documents: documentClient }, { usage }), env),
);
