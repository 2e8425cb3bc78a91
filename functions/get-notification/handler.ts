import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { DynamoNotificationRepository } from '#shared/adapters/dynamo-notification-repository.ts';
import { findNotification } from '#shared/notifications/find-notification.ts';
import { toStatusBody } from '#shared/notifications/notification-response.ts';
import { getNotificationRequest } from '#shared/schemas/notify-submission.ts';

const notifications = new DynamoNotificationRepository(documentClient(), requiredEnv('TABLE_NAME'));

/**
 * GET /api/v1/user/me/file/notify/{notification_id} (extension): where the caller's chat
 * message is. The key is the caller's own partition, so anyone else's id is simply not found.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(getNotificationRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const notificationId = input.path.notification_id;
    const found = await findNotification({ notifications }, { userId, notificationId });
    return jsonResponse(200, toStatusBody(found), { 'cache-control': 'no-store' });
  });
