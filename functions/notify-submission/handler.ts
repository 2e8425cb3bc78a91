import middy from '@middy/core';
import { documentClient, dynamoDbClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import { IDEMPOTENT_OPERATIONS } from '#shared/data/keys.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { IDEMPOTENCY_HEADER, idempotentPerKey } from '#shared/http/idempotency-key.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { DynamoNotificationRepository } from '#shared/adapters/dynamo-notification-repository.ts';
import {
  announcementFingerprint,
  notificationPath,
  toAcceptedBody,
} from '#shared/notifications/notification-response.ts';
import {
  notifySubmission,
  type SubmissionAnnouncement,
} from '#shared/notifications/notify-submission.ts';
import { queueFromEnv } from '#shared/queue/queue-from-env.ts';
import { notifySubmissionRequest } from '#shared/schemas/notify-submission.ts';
import { DynamoUserFileRepository } from '#shared/adapters/dynamo-user-file-repository.ts';

const tableName = requiredEnv('TABLE_NAME');
const ports = {
  files: new DynamoUserFileRepository(documentClient(), tableName),
  notifications: new DynamoNotificationRepository(documentClient(), tableName),
  queue: queueFromEnv('NOTIFY_QUEUE_URL'),
};
const notify = async (announcement: SubmissionAnnouncement) =>
  toAcceptedBody(await notifySubmission(ports, announcement));
const notifyOnce = idempotentPerKey(IDEMPOTENT_OPERATIONS.notifySubmission, notify, {
  client: dynamoDbClient(),
  tableName,
});

/**
 * POST /api/v1/user/me/file/notify: announces a finished submission. The one chat message
 * goes out from the queue's worker; the 202 says it is queued and where to follow it.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(notifySubmissionRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }, context) => {
    const announcement: SubmissionAnnouncement = {
      userId,
      fileIds: input.body.file_ids,
      fundName: input.body.fund_name ?? null,
      message: input.body.message ?? null,
    };
    const key = input.header[IDEMPOTENCY_HEADER];
    const accepted =
      key === undefined
        ? await notify(announcement)
        : await notifyOnce(
            announcement,
            { userId, key, fingerprint: announcementFingerprint(announcement) },
            context,
          );
    return jsonResponse(202, accepted, { location: notificationPath(accepted.notification_id) });
  });
