import {
  ChangeMessageVisibilityCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { MAX_VISIBILITY_MS, type MessageQueue } from '../message-queue.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/** A deployed stage's queue: a standard queue, fair across message groups. */
export class SqsMessageQueue implements MessageQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;

  constructor(client: SQSClient, queueUrl: string) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  /**
   * A group makes the standard queue a fair queue for it (MessageGroupId, 2025): SQS hands
   * out quiet groups' messages ahead of a group with a backlog. No consumer change needed.
   */
  async send(body: string, group?: string): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: body,
        ...(group === undefined ? {} : { MessageGroupId: group }),
      }),
    );
  }

  async changeVisibility(receiptHandle: string, delayMs: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        // Whole seconds, rounded up, so a Retry-After is never cut short.
        VisibilityTimeout: Math.ceil(Math.min(Math.max(delayMs, 0), MAX_VISIBILITY_MS) / 1000),
      }),
    );
  }
}

/** The notification queue's dead-letter queue. */
export const deadLetters = ({
  sqs,
  NOTIFY_DLQ_URL,
}: Pick<AdapterSources, 'sqs' | 'NOTIFY_DLQ_URL'>) => new SqsMessageQueue(sqs(), NOTIFY_DLQ_URL);

/** The submission-notification queue. */
export const notificationQueue = ({
  sqs,
  NOTIFY_QUEUE_URL,
}: Pick<AdapterSources, 'sqs' | 'NOTIFY_QUEUE_URL'>) =>
  new SqsMessageQueue(sqs(), NOTIFY_QUEUE_URL);
