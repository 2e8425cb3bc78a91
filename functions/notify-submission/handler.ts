import middy from '@middy/core';
import { IDEMPOTENT_OPERATIONS } from '#shared/storage/keys.ts';
import { RateLimited } from '#shared/domain/outcome.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { IDEMPOTENCY_HEADER, idempotentPerKey } from '#shared/http/idempotency-key.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import {
  announcementFingerprint,
  notificationPath,
  toAcceptedBody,
} from '#shared/notifications/api/notification-response.ts';
import {
  notifySubmission,
  type SubmissionAnnouncement,
} from '#shared/notifications/notify-submission.ts';
import { notifyRule } from '#shared/notifications/token-buckets.ts';
import { notifySubmissionRequest } from '#shared/notifications/api/notify-submission.ts';
import { recordMetric } from '#shared/observability/metrics.ts';
import { documentClient, dynamoDbClient } from '#shared/storage/aws/dynamodb.ts';
import { sqsClient } from '#shared/storage/aws/sqs.ts';
import { idempotency } from '#shared/storage/idempotency-store.ts';
import { notificationQueue } from '#shared/queue/adapters/sqs-message-queue.ts';
import { notifications } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { rateLimits } from '#shared/notifications/adapters/dynamo-token-buckets.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { notifySubmissionFunction } from './function.ts';

/**
 * POST /api/v1/user/me/file/notify: announces a finished submission. The one chat message
 * goes out from the queue's worker; the 202 says it is queued and where to follow it. Each
 * sender has an allowance (NOTIFY_BURST, NOTIFY_RATE_PER_MINUTE); a call beyond it is a 429
 * with Retry-After. A replay of an Idempotency-Key sends nothing, so it spends nothing: the
 * allowance is taken inside the keyed work, which a replay does not run.
 */
export const createHandler = (
  adapters: Pick<
    ServiceAdapters,
    'userFiles' | 'notifications' | 'notificationQueue' | 'idempotency' | 'rateLimits'
  >,
  settings: Pick<
    HandlerSettings,
    'USER_ID_CLAIM' | 'NOTIFY_BURST' | 'NOTIFY_RATE_PER_MINUTE' | 'MALWARE_SCANNING'
  >,
) => {
  const ports = { ...adapters, scanning: settings.MALWARE_SCANNING === 'on' };
  const allowance = notifyRule({
    burst: settings.NOTIFY_BURST,
    perMinute: settings.NOTIFY_RATE_PER_MINUTE,
  });
  const notify = idempotentPerKey(
    IDEMPOTENT_OPERATIONS.notifySubmission,
    async (announcement: SubmissionAnnouncement) => {
      try {
        const queued = await notifySubmission(ports, allowance, announcement);
        recordMetric('NotificationsQueued');
        return toAcceptedBody(queued);
      } catch (error) {
        if (error instanceof RateLimited) recordMetric('NotificationsThrottled');
        throw error;
      }
    },
    adapters.idempotency,
  );
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(notifySubmissionRequest, settings))
    .handler<ApiEvent, ApiResult>(async ({ userId, input }, context) => {
      const announcement: SubmissionAnnouncement = {
        userId,
        fileIds: input.body.file_ids,
        fundName: input.body.fund_name ?? null,
        message: input.body.message ?? null,
      };
      const key = input.header[IDEMPOTENCY_HEADER];
      const fingerprint = () => announcementFingerprint(announcement);
      const accepted = await notify(announcement, { userId, key, fingerprint }, context);
      return jsonResponse(202, accepted, { location: notificationPath(accepted.notification_id) });
    });
};

export const handler = lambdaEntry(notifySubmissionFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, dynamodb: dynamoDbClient, documents: documentClient, sqs: sqsClient },
      { userFiles, notifications, notificationQueue, idempotency, rateLimits },
    ),
    env,
  ),
);
