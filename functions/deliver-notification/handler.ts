import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import { logger } from '#shared/logger.ts';
import { chatChannelFromEnv } from '#shared/notifications/chat-channel-from-env.ts';
import { deliverNotification } from '#shared/notifications/deliver-notification.ts';
import { deliveryRulesFromEnv } from '#shared/notifications/delivery-rules.ts';
import { DynamoNotificationRepository } from '#shared/adapters/dynamo-notification-repository.ts';
import { queueFromEnv } from '#shared/queue/queue-from-env.ts';

const rules = deliveryRulesFromEnv();
const ports = {
  notifications: new DynamoNotificationRepository(documentClient(), requiredEnv('TABLE_NAME')),
  chat: chatChannelFromEnv(rules.postTimeoutMs),
  queue: queueFromEnv('NOTIFY_QUEUE_URL'),
  deadLetters: queueFromEnv('NOTIFY_DLQ_URL'),
};

/** A message left on the queue on purpose: its visibility already says when it comes back. */
class DeliveryDeferred extends Error {
  override name = 'DeliveryDeferred';
}

const deliver = async (record: SQSRecord): Promise<void> => {
  const result = await deliverNotification(ports, rules, {
    body: record.body,
    receiptHandle: record.receiptHandle,
    receiveCount: Number(record.attributes.ApproximateReceiveCount),
  });
  if ('comeBack' in result) {
    throw new DeliveryDeferred(`${result.outcome}: back in ${Math.round(result.delayMs)} ms`);
  }
};

/**
 * The notification queue's worker: each message is one notify call's chat message. Messages
 * that must come back are reported as batch item failures, so SQS keeps only those.
 */
export const handler = middy<SQSEvent, SQSBatchResponse>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler((event, context) =>
    // A processor per batch: it keeps the batch's state, and the local stage may run two.
    processPartialResponse(event, deliver, new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
      // One post at a time: a webhook takes about one message a second.
      processInParallel: false,
    }),
  );
