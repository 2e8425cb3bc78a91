import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { MessageQueue } from '#shared/queue/message-queue.ts';
import { LOCAL_REGION } from '../stage/stand-ins.ts';
import { outsideInvocations } from '../lambda/invocation-logs.ts';

/** What a queue's consumer is: a Lambda handler of SQS events with partial batch responses. */
export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface InProcessQueueOptions {
  readonly name: string;
  readonly visibilityTimeoutMs: number;
  /** SQS's redrive policy. */
  readonly redrive?: { readonly maxReceiveCount: number; readonly deadLetters: InProcessQueue };
  readonly batchSize?: number;
  readonly onArrival?: (message: HeldMessage) => void;
}

export interface HeldMessage {
  readonly messageId: string;
  readonly body: string;
  /** Its MessageGroupId: a fair queue's tenant. */
  readonly group?: string;
  readonly sentAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  visibleAt: number;
  receiptHandle?: string;
}

/**
 * SQS in memory, consumed a batch at a time as Lambda's event source mapping does. Fair by
 * MessageGroupId as an SQS fair queue: the group served longest ago goes first.
 */
export class InProcessQueue implements MessageQueue {
  readonly name: string;
  private readonly options: InProcessQueueOptions;
  private readonly held = new Map<string, HeldMessage>();
  private consumer: QueueConsumer | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** By group, the receive that last served it. */
  private readonly served = new Map<string, number>();
  private receives = 0;

  constructor(options: InProcessQueueOptions) {
    this.name = options.name;
    this.options = options;
  }

  get arn(): string {
    return `arn:aws:sqs:${LOCAL_REGION}:000000000000:${this.name}`;
  }

  send(body: string, group?: string): Promise<void> {
    const now = Date.now();
    const message: HeldMessage = {
      ...{ messageId: randomUUID(), body, sentAt: now, visibleAt: now, receiveCount: 0 },
      ...(group === undefined ? {} : { group }),
    };
    this.held.set(message.messageId, message);
    this.options.onArrival?.(message);
    this.wake();
    return Promise.resolve();
  }

  changeVisibility(receiptHandle: string, delayMs: number): Promise<void> {
    const message = [...this.held.values()].find((m) => m.receiptHandle === receiptHandle);
    if (message === undefined) {
      return Promise.reject(new Error('ReceiptHandleIsInvalid: no message has this handle'));
    }
    message.visibleAt = Date.now() + Math.max(0, delayMs);
    return Promise.resolve();
  }

  messages(): readonly HeldMessage[] {
    return [...this.held.values()].sort((a, b) => a.sentAt - b.sentAt);
  }

  consume(consumer: QueueConsumer): void {
    this.consumer = consumer;
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private wake(): void {
    if (this.consumer === undefined || this.stopped || this.running !== undefined) return;
    clearTimeout(this.timer);
    const next = Math.min(...[...this.held.values()].map((m) => m.visibleAt));
    if (!Number.isFinite(next)) return;
    const deliver = () => {
      this.running = this.deliverBatch().finally(() => {
        this.running = undefined;
        this.wake();
      });
    };
    // A sender's invocation only sets the delivery going: the worker's lines are its own.
    this.timer = outsideInvocations(() => setTimeout(deliver, Math.max(0, next - Date.now())));
  }

  private async deliverBatch(): Promise<void> {
    const consumer = this.consumer;
    if (consumer === undefined) return;
    const batch = await this.receiveBatch(Date.now());
    if (batch.length === 0) return;
    const all = new Set(batch.map((m) => m.messageId));
    let failed: Set<string>;
    try {
      const response = await consumer({ Records: batch.map((m) => sqsRecordOf(m, this.arn)) });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      // Lambda takes a failure it cannot match to a message as the whole batch failing.
      if ([...failed].some((id) => !all.has(id))) failed = all;
    } catch (error) {
      console.error(`[${this.name}] the consumer failed a whole batch:`, error);
      failed = all;
    }
    for (const id of all) if (!failed.has(id)) this.held.delete(id);
  }

  /** Redrives what was received too often, then receives the fairest visible messages. */
  private async receiveBatch(now: number): Promise<HeldMessage[]> {
    const { redrive, batchSize = 10, visibilityTimeoutMs } = this.options;
    const visible: HeldMessage[] = [];
    for (const message of this.messages()) {
      if (message.visibleAt > now) continue;
      if (redrive !== undefined && message.receiveCount >= redrive.maxReceiveCount) {
        this.held.delete(message.messageId);
        await redrive.deadLetters.send(message.body, message.group);
      } else visible.push(message);
    }
    const served = (m: HeldMessage) =>
      m.group === undefined ? 0 : (this.served.get(m.group) ?? 0);
    // Stable: oldest first within a group, and among groups served equally long ago.
    const batch = visible.sort((a, b) => served(a) - served(b)).slice(0, batchSize);
    for (const message of batch) {
      if (message.group !== undefined) this.served.set(message.group, ++this.receives);
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.receiptHandle = randomUUID();
      message.visibleAt = now + visibilityTimeoutMs;
    }
    return batch;
  }
}

/** A message as Lambda's event source mapping hands it over. */
export function sqsRecordOf(message: Omit<HeldMessage, 'visibleAt'>, queueArn: string): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle ?? '',
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.sentAt),
      ...(message.group === undefined ? {} : { MessageGroupId: message.group }),
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(message.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}
