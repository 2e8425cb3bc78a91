import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WORKER_BATCH_SIZE, WORKER_CONCURRENCY } from '#shared/notifications/delivery-rules.ts';

export interface NotificationWorkerProps {
  /** The function that consumes the queue (declared `notificationQueue: 'consume'`). */
  readonly worker: IFunction;
  /** The submission-notification queue it consumes. */
  readonly queue: IQueue;
}

/**
 * The worker posts each queued submission notification to the chat webhook whose URL the
 * secret holds, at the channel's pace, and retries through the queue (reporting batch item
 * failures). The queue is a standard one whose messages carry their sender as
 * MessageGroupId, which makes it an SQS fair queue (docs/adr/0005-fair-notification-queue.md).
 */
export class NotificationWorker extends Construct {
  constructor(scope: Construct, id: string, props: NotificationWorkerProps) {
    super(scope, id);
    // The event source grants receive, delete and ChangeMessageVisibility on the queue.
    props.worker.addEventSource(
      new SqsEventSource(props.queue, {
        // Few messages in flight, so the fair queue, not the batch, decides who goes next.
        batchSize: WORKER_BATCH_SIZE,
        reportBatchItemFailures: true,
        // The channel takes about one message a second, paced in the worker; two keep it busy.
        maxConcurrency: WORKER_CONCURRENCY,
      }),
    );
  }
}
