import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_FUNCTIONS } from '#shared/api/routes.ts';
import type { ServiceFunctions } from './service-functions.ts';

export interface NotificationWorkerProps {
  readonly functions: ServiceFunctions;
  /** The submission-notification queue it consumes. */
  readonly queue: IQueue;
}

/**
 * The worker posts each queued submission notification to the chat webhook whose URL the
 * secret holds, and retries through the queue (reporting batch item failures).
 */
export class NotificationWorker extends Construct {
  constructor(scope: Construct, id: string, props: NotificationWorkerProps) {
    super(scope, id);
    const worker = props.functions.make(this, EVENT_FUNCTIONS.deliverNotification.functionId);
    // The event source grants receive, delete and ChangeMessageVisibility on the queue.
    worker.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // Slack takes about one message a second a webhook; the worker posts one at a time.
        maxConcurrency: 2,
      }),
    );
  }
}
