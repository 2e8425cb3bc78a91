import {
  ChangeMessageVisibilityCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { MAX_VISIBILITY_MS, type MessageQueue } from '../queue/message-queue.ts';

/** A deployed stage's queue. */
export class SqsMessageQueue implements MessageQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;

  constructor(client: SQSClient, queueUrl: string) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  async send(body: string): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body }));
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
