import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import { recordMetric } from '#shared/observability/metrics.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import {
  deliverNotification,
  type DeliveryResult,
} from '#shared/notifications/deliver-notification.ts';
import type { BusinessMetric } from '#shared/observability/business-metrics.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { secretsManagerClient } from '#shared/storage/aws/secrets-manager.ts';
import { sqsClient } from '#shared/storage/aws/sqs.ts';
import { chat } from '#shared/notifications/adapters/slack-webhook-channel.ts';
import { deadLetters } from '#shared/queue/adapters/sqs-message-queue.ts';
import { notificationQueue } from '#shared/queue/adapters/sqs-message-queue.ts';
import { notifications } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { rateLimits } from '#shared/notifications/adapters/dynamo-token-buckets.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import { type ChatSettings, chatDeliveryRules } from '#shared/wiring/chat-delivery-rules.ts';
import { deliverNotificationFunction } from './function.ts';

/** A message left on the queue on purpose: its visibility already says when it comes back. */
class DeliveryDeferred extends Error {
  override name = 'DeliveryDeferred';
}

/** Which notification metrics one message's outcome adds to. */
const COUNTED: Readonly<
  Record<DeliveryResult['outcome'], readonly Extract<BusinessMetric, `Notifications${string}`>[]>
> = {
  sent: ['NotificationsSent'],
  retrying: ['NotificationsFailed'],
  // The try stopped before it knew whether it posted; it is not posted again.
  unconfirmed: ['NotificationsFailed'],
  failed: ['NotificationsFailed', 'NotificationsDeadLettered'],
  busy: [],
  'already-settled': [],
  'not-found': [],
};

function countDelivery(result: DeliveryResult): void {
  for (const metric of COUNTED[result.outcome]) recordMetric(metric);
}

/**
 * The notification queue's worker: each message is one notify call's chat message. Messages
 * that must come back are reported as batch item failures, so SQS keeps only those.
 */
export const createHandler = (
  adapters: Pick<
    ServiceAdapters,
    'notifications' | 'chat' | 'notificationQueue' | 'deadLetters' | 'rateLimits'
  >,
  settings: ChatSettings,
) => {
  const rules = chatDeliveryRules(settings);
  const deliver = async (record: SQSRecord): Promise<void> => {
    const result = await deliverNotification(adapters, rules, {
      body: record.body,
      receiptHandle: record.receiptHandle,
      receiveCount: Number(record.attributes.ApproximateReceiveCount),
    });
    countDelivery(result);
    if ('comeBack' in result) {
      throw new DeliveryDeferred(`${result.outcome}: back in ${Math.round(result.delayMs)} ms`);
    }
  };
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(observeInvocation())
    .handler((event, context) =>
      // A processor per batch: it keeps the batch's state, and the local stage may run two.
      processPartialResponse(event, deliver, new BatchProcessor(EventType.SQS), {
        context,
        throwOnFullBatchFailure: false,
        // One post at a time: the channel takes about one message a second.
        processInParallel: false,
      }),
    );
};

export const handler = lambdaEntry(deliverNotificationFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, sqs: sqsClient, secretsManager: secretsManagerClient },
      { notifications, chat, notificationQueue, deadLetters, rateLimits },
    ),
    env,
  ),
);
