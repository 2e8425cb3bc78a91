import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessQueue } from '#infra/local/queue/in-process-queue.ts';
import { eventually } from '#test/support/eventually.ts';

const queues: InProcessQueue[] = [];
const make = (options: ConstructorParameters<typeof InProcessQueue>[0]) => {
  const queue = new InProcessQueue(options);
  queues.push(queue);
  return queue;
};
afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.stop()));
});

describe('InProcessQueue: SQS and its Lambda event source, in process', () => {
  it('delivers SQS-shaped records and deletes those the batch response does not name', async () => {
    const queue = make({ name: 'q1', visibilityTimeoutMs: 60_000 });
    const events: SQSEvent[] = [];
    queue.consume((event) => {
      events.push(event);
      const second = event.Records[1];
      return Promise.resolve({
        batchItemFailures: second === undefined ? [] : [{ itemIdentifier: second.messageId }],
      });
    });
    await Promise.all([queue.send('a'), queue.send('b')]);
    await eventually(() => events.length > 0 || undefined);
    const [record] = events[0]?.Records ?? [];
    expect(record).toMatchObject({
      body: 'a',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q1',
      attributes: { ApproximateReceiveCount: '1' },
      md5OfBody: '0cc175b9c0f1b6a831c399e269772661',
    });
    expect(events[0]?.Records.map((r) => r.body)).toEqual(['a', 'b']);
    // The failed one stays, hidden for the visibility timeout.
    expect(queue.messages().map((m) => m.body)).toEqual(['b']);
  });

  it('redelivers a message when the worker asks (ChangeMessageVisibility), counting receives', async () => {
    const queue = make({ name: 'q2', visibilityTimeoutMs: 60_000 });
    const received: { count: string; at: number }[] = [];
    queue.consume(async (event) => {
      const record = event.Records[0];
      if (record === undefined) return undefined;
      received.push({ count: record.attributes.ApproximateReceiveCount, at: Date.now() });
      if (received.length < 3) {
        await queue.changeVisibility(record.receiptHandle, 100);
        return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
      }
      return { batchItemFailures: [] };
    });
    await queue.send('again');
    await eventually(() => queue.messages().length === 0 || undefined);
    expect(received.map((r) => r.count)).toEqual(['1', '2', '3']);
    expect((received[1]?.at ?? 0) - (received[0]?.at ?? 0)).toBeGreaterThanOrEqual(95);
  });

  it('moves a message received maxReceiveCount times to the dead-letter queue', async () => {
    const deadLetters = make({ name: 'dlq', visibilityTimeoutMs: 60_000 });
    const queue = make({
      name: 'q3',
      visibilityTimeoutMs: 20,
      redrive: { maxReceiveCount: 3, deadLetters },
    });
    let receives = 0;
    queue.consume(() => {
      receives += 1;
      return Promise.reject(new Error('the worker crashed'));
    });
    await queue.send('poison');
    await eventually(() => deadLetters.messages().length === 1 || undefined);
    expect(receives).toBe(3);
    expect(deadLetters.messages()[0]?.body).toBe('poison');
    expect(queue.messages()).toHaveLength(0);
  });

  it('takes a failure it cannot match to a message as the whole batch failing, as Lambda does', async () => {
    const queue = make({ name: 'q5', visibilityTimeoutMs: 60_000 });
    let batches = 0;
    queue.consume(() => {
      batches += 1;
      return Promise.resolve({ batchItemFailures: [{ itemIdentifier: 'not-a-message-id' }] });
    });
    await Promise.all([queue.send('x'), queue.send('y')]);
    await eventually(() => batches > 0 || undefined);
    await queue.stop(); // waits for the batch under way to be settled
    expect(queue.messages().map((m) => m.body)).toEqual(['x', 'y']);
  });

  it("is fair across message groups: a quiet group's message goes before a noisy group's backlog", async () => {
    const queue = make({ name: 'q6', visibilityTimeoutMs: 60_000, batchSize: 1 });
    const order: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    queue.consume(async (event) => {
      const record = event.Records[0];
      if (record !== undefined)
        order.push(`${record.attributes.MessageGroupId ?? '-'}:${record.body}`);
      // The first message stays in hand until all the others are queued.
      if (order.length === 1) await held;
      return { batchItemFailures: [] };
    });
    for (const n of [1, 2, 3, 4]) await queue.send(`noisy ${String(n)}`, 'user-1');
    await eventually(() => order.length === 1 || undefined);
    await queue.send('quiet', 'user-2');
    await queue.send('alone');
    await queue.send('noisy 5', 'user-1');
    release();
    await eventually(() => queue.messages().length === 0 || undefined);
    expect(order).toEqual([
      'user-1:noisy 1',
      // Groups that have not been served go first, oldest first; a message without a group
      // is a group of its own. Then the groups take turns.
      'user-2:quiet',
      '-:alone',
      'user-1:noisy 2',
      'user-1:noisy 3',
      'user-1:noisy 4',
      'user-1:noisy 5',
    ]);
  });

  it('hands the group to the consumer and sends it on to the dead-letter queue', async () => {
    const deadLetters = make({ name: 'dlq2', visibilityTimeoutMs: 60_000 });
    const queue = make({
      name: 'q7',
      visibilityTimeoutMs: 20,
      redrive: { maxReceiveCount: 1, deadLetters },
    });
    const groups: (string | undefined)[] = [];
    queue.consume((event) => {
      groups.push(...event.Records.map((r) => r.attributes.MessageGroupId));
      return Promise.reject(new Error('the worker crashed'));
    });
    await queue.send('poison', 'user-9');
    await eventually(() => deadLetters.messages().length === 1 || undefined);
    expect(groups).toEqual(['user-9']);
    expect(deadLetters.messages()[0]).toMatchObject({ body: 'poison', group: 'user-9' });
  });

  it('refuses a receipt handle it did not hand out, as SQS does', async () => {
    const queue = make({ name: 'q4', visibilityTimeoutMs: 60_000 });
    await expect(queue.changeVisibility('nope', 0)).rejects.toThrow(/ReceiptHandleIsInvalid/);
  });
});
