import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { findNotification } from '#shared/notifications/find-notification.ts';
import { toStatusBody } from '#shared/notifications/api/notification-response.ts';
import { getNotificationRequest } from '#shared/notifications/api/notify-submission.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { notifications } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { getNotificationFunction } from './function.ts';

/**
 * GET /api/v1/user/me/file/notify/{notification_id} (extension): where the caller's chat
 * message is. The key is the caller's own partition, so anyone else's id is simply not found.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'notifications'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) => {
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(getNotificationRequest, settings))
    .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
      const notificationId = input.path.notification_id;
      const found = await findNotification(adapters, { userId, notificationId });
      return jsonResponse(200, toStatusBody(found), { 'cache-control': 'no-store' });
    });
};

export const handler = lambdaEntry(getNotificationFunction.variables, (env) =>
  createHandler(composeAdapters({ ...env, documents: documentClient }, { notifications }), env),
);
