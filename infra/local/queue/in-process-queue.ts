import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { MessageQueue } from '#shared/queue/message-queue.ts';
import { LOCAL_REGION } from '../stage/emulators.ts';
import { outsideInvocations } from '../lambda/invocation-logs.ts';

/** What a queue's consumer is: a Lambda handler of SQS events with partial batch responses. */
export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

export interface InProcessQueueOptions {
  readonly name: string;
  /** How long a received message stays hidden unless its consumer says otherwise. */
  readonly visibilityTimeoutMs: number;
  /** SQS's redrive policy: a message received this many times goes to `deadLetters`. */
  readonly redrive?: { readonly maxReceiveCount: number; readonly deadLetters: InProcessQueue };
  /** Lambda's event source mapping batch size for SQS. */
  readonly batchSize?: number;
  /** Told of every message that lands here (a dead-letter queue's arrivals, say). */
  readonly onArrival?: (message: HeldMessage) => void;
}

/** A message the queue holds. */
export interface HeldMessage {
  readonly messageId: string;
  readonly body: string;
  /** Its MessageGroupId: the tenant a fair queue shares delivery between. */
  readonly group?: string;
  readonly sentAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  visibleAt: number;
  receiptHandle?: string;
}

/**
 * SQS in memory, consumed one batch at a time as Lambda's event source mapping does, with a
 * redrive policy. Fair by MessageGroupId, as an SQS fair queue converges to under a backlog:
 * the group served longest ago first, so one sender's backlog never holds up another's.
 */
export class InProcessQueue implements MessageQueue {
  readonly name: string;
  private readonly options: InProcessQueueOptions;
  private readonly held = new Map<string, HeldMessage>();
  private consumer: QueueConsumer | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** When each group was last handed a message, by receive number. */
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
    const message: HeldMessage = {
      messageId: randomUUID(),
      body,
      ...(group === undefined ? {} : { group }),
      sentAt: Date.now(),
      receiveCount: 0,
      visibleAt: Date.now(),
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

  /** Every message still held, in order sent. */
  messages(): readonly HeldMessage[] {
    return [...this.held.values()].sort((a, b) => a.sentAt - b.sentAt);
  }

  /** Starts delivering messages to the consumer. */
  consume(consumer: QueueConsumer): void {
    this.consumer = consumer;
    this.wake();
  }

  /** Stops delivering, and waits for the batch under way. */
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
    // A sender's invocation only sets the delivery going: the worker's lines are its own.
    this.timer = outsideInvocations(() =>
      setTimeout(
        () => {
          this.running = this.deliverBatch().finally(() => {
            this.running = undefined;
            this.wake();
          });
        },
        Math.max(0, next - Date.now()),
      ),
    );
  }

  private async deliverBatch(): Promise<void> {
    const consumer = this.consumer;
    if (consumer === undefined) return;
    const now = Date.now();
    const batch: HeldMessage[] = [];
    const visible: HeldMessage[] = [];
    for (const message of this.messages()) {
      if (message.visibleAt > now) continue;
      const redrive = this.options.redrive;
      if (redrive !== undefined && message.receiveCount >= redrive.maxReceiveCount) {
        this.held.delete(message.messageId);
        await redrive.deadLetters.send(message.body, message.group);
        continue;
      }
      visible.push(message);
    }
    for (;;) {
      if (batch.length >= (this.options.batchSize ?? 10)) break;
      const message = this.fairest(visible);
      if (message === undefined) break;
      visible.splice(visible.indexOf(message), 1);
      this.receives += 1;
      if (message.group !== undefined) this.served.set(message.group, this.receives);
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.receiptHandle = randomUUID();
      message.visibleAt = now + this.options.visibilityTimeoutMs;
      batch.push(message);
    }
    if (batch.length === 0) return;
    let failed: Set<string>;
    try {
      const response = await consumer({ Records: batch.map((m) => this.record(m)) });
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      // Lambda takes a failure it cannot match to a message as the whole batch failing.
      if ([...failed].some((id) => !batch.some((m) => m.messageId === id))) {
        failed = new Set(batch.map((m) => m.messageId));
      }
    } catch (error) {
      console.error(`[${this.name}] the consumer failed a whole batch:`, error);
      failed = new Set(batch.map((m) => m.messageId));
    }
    for (const message of batch) {
      if (!failed.has(message.messageId)) this.held.delete(message.messageId);
    }
  }

  private record(message: HeldMessage): SQSRecord {
    return sqsRecordOf(message, this.arn);
  }

  /**
   * The oldest message of the group served longest ago. A group never served, and a message
   * without a group (a tenant of its own), come first.
   */
  private fairest(candidates: readonly HeldMessage[]): HeldMessage | undefined {
    let best: HeldMessage | undefined;
    let bestServed = Infinity;
    for (const message of candidates) {
      const served = message.group === undefined ? 0 : (this.served.get(message.group) ?? 0);
      // Candidates come oldest first, so the first of a group is its oldest.
      if (served < bestServed) {
        best = message;
        bestServed = served;
      }
    }
    return best;
  }
}

/** A message as Lambda's event source mapping hands it to a function, in an SQS event. */
export function sqsRecordOf(
  message: Pick<
    HeldMessage,
    'messageId' | 'body' | 'group' | 'sentAt' | 'receiveCount' | 'firstReceivedAt'
  > & {
    readonly receiptHandle?: string;
  },
  queueArn: string,
): SQSRecord {
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
