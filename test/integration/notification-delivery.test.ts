import { randomUUID } from 'node:crypto';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, afterAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { chatChannelBucketKey } from '#shared/storage/keys.ts';
import { deliverNotification } from '#shared/notifications/deliver-notification.ts';
import type { DeliveryRules } from '#shared/notifications/delivery-rules.ts';
import { DynamoNotificationRepository } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { DynamoTokenBuckets } from '#shared/notifications/adapters/dynamo-token-buckets.ts';
import { notifySubmission } from '#shared/notifications/notify-submission.ts';
import {
  SlackWebhookChannel,
  WebhookNotConfigured,
} from '#shared/notifications/adapters/slack-webhook-channel.ts';
import {
  NOTIFICATION_STATUSES,
  notificationMessageBody,
  type NotificationStatus,
} from '#shared/notifications/submission-notification.ts';
import type { ChatChannel, PostOutcome } from '#shared/notifications/chat-channel.ts';
import { type DeliveryEvent, nextStatus } from '#shared/notifications/delivery-transitions.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { answerLost, failing } from '#test/support/faults.ts';
import { putItems } from '#test/support/put-items.ts';
import { standInClients } from '#test/support/test-stage.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

const { dynamodb, dynamodbEndpoint } = standInClients();
const name = `notify-${randomUUID().slice(0, 8)}`;
const notifications = new DynamoNotificationRepository(dynamodb, name);
const files = new DynamoUserFileRepository(dynamodb, name);
const buckets = new DynamoTokenBuckets(dynamodb, name);
/** No test here needs a post to time out: a limit the receiver never misses. */
const POST_TIMEOUT_MS = waitLimit(5_000);
const rules: DeliveryRules = {
  attempts: 5,
  baseDelayMs: 50,
  maxDelayMs: 1000,
  postTimeoutMs: POST_TIMEOUT_MS,
  leaseMs: 15_000,
  // A channel too fast to matter here: its pace has tests of its own, on a table of their own.
  channel: { perSecond: 1000, burst: 1 },
  paceWaitMaxMs: 5000,
};
/** An allowance no test here runs out of; the limit's own tests are in token-buckets.test.ts. */
const allowance = { perSecond: 1000, burst: 1000 };

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  await ensureTable(dynamodbEndpoint, name);
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(async () => {
  receiver.reset();
  // Each test starts with an idle channel: a Retry-After one test provoked holds it for real.
  await dynamodb.send(new DeleteCommand({ TableName: name, Key: chatChannelBucketKey() }));
});

/** What the worker asked of the queues: the calls themselves are the behaviour under test. */
function queues() {
  const putOff: { receiptHandle: string; delayMs: number }[] = [];
  const setAside: string[] = [];
  return {
    putOff,
    setAside,
    notificationQueue: {
      changeVisibility: (receiptHandle: string, delayMs: number) => {
        putOff.push({ receiptHandle, delayMs });
        return Promise.resolve();
      },
    },
    deadLetters: {
      send: (body: string) => {
        setAside.push(body);
        return Promise.resolve();
      },
    },
  };
}

const chat = () =>
  new SlackWebhookChannel(() => Promise.resolve(receiver.url), { timeoutMs: POST_TIMEOUT_MS });

/** A queued notification of one file of the user's, in `table` (this file's own by default). */
async function queuedNotification(userId: number, table = name) {
  await putItems(dynamodb, table, [
    toUserFileItem({
      userId,
      id: 1,
      name: 'a.pdf',
      type: 'deck',
      filesize: 5,
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: null,
      isArchived: false,
      location: null,
    }),
  ]);
  const sent: string[] = [];
  const notification = await notifySubmission(
    {
      userFiles: table === name ? files : new DynamoUserFileRepository(dynamodb, table),
      notifications:
        table === name ? notifications : new DynamoNotificationRepository(dynamodb, table),
      notificationQueue: { send: (body) => Promise.resolve(void sent.push(body)) },
      rateLimits: new DynamoTokenBuckets(dynamodb, table),
    },
    allowance,
    { userId, fileIds: [1], fundName: 'F', message: null },
  );
  return { notification, body: sent[0] ?? '' };
}

const received = (body: string, receiveCount = 1) => ({
  body,
  receiptHandle: `handle-${receiveCount}`,
  receiveCount,
});

/**
 * Every item but the token buckets: a call that reached the allowance spent a token whatever
 * became of it (a client retrying into a failing queue is still held to its rate).
 */
const stored = async () =>
  (
    (await dynamodb.send(new ScanCommand({ TableName: name, ConsistentRead: true }))).Items ?? []
  ).filter((item) => item.entity !== 'TokenBucket');

describe('deliverNotification: never two messages for one notify call', () => {
  it('two deliveries of one message at once: one posts, the other is put off', async () => {
    const { notification, body } = await queuedNotification(1);
    const q = queues();
    const ports = { notifications, chat: chat(), ...q, rateLimits: buckets };
    const results = await Promise.all([
      deliverNotification(ports, rules, received(body)),
      deliverNotification(ports, rules, received(body)),
    ]);
    expect(results.map((r) => r.outcome).sort()).toEqual(['busy', 'sent']);
    expect(receiver.posts).toHaveLength(1);
    expect((await notifications.get(notification))?.status).toBe('sent');
  });

  it('a claim that landed but lost its answer is still this try’s: one post, sent', async () => {
    const { notification, body } = await queuedNotification(9);
    // The first claim lands; the SDK's retry of it then finds the version moved on.
    let retried = false;
    const flaky = new Proxy(notifications, {
      get: (target, property, receiver) =>
        property === 'claim'
          ? async (...args: Parameters<typeof notifications.claim>) => {
              if (!retried) {
                retried = true;
                await target.claim(...args);
              }
              return target.claim(...args);
            }
          : (Reflect.get(target, property, receiver) as unknown),
    });
    const result = await deliverNotification(
      { notifications: flaky, chat: chat(), ...queues(), rateLimits: buckets },
      rules,
      received(body),
    );
    expect(result.outcome).toBe('sent');
    expect(receiver.posts).toHaveLength(1);
    expect((await notifications.get(notification))?.status).toBe('sent');
  });

  it('a try still under way (its lease unexpired): the message is put off, nothing posted', async () => {
    const { notification, body } = await queuedNotification(2);
    const now = new Date();
    await notifications.claim(notification, 0, now, new Date(now.getTime() + 10_000), true);
    const q = queues();
    const result = await deliverNotification(
      { notifications, chat: chat(), ...q, rateLimits: buckets, now: () => now },
      rules,
      received(body, 2),
    );
    expect(result).toEqual({ outcome: 'busy', comeBack: true, delayMs: 11_000 });
    expect(q.putOff).toEqual([{ receiptHandle: 'handle-2', delayMs: 11_000 }]);
    expect(receiver.posts).toHaveLength(0);
  });

  it('a try whose worker died mid-post: marked unconfirmed, and never posted again', async () => {
    const { notification, body } = await queuedNotification(3);
    const died = new Date(Date.now() - 60_000);
    await notifications.claim(notification, 0, died, new Date(died.getTime() + 15_000), true);
    const q = queues();
    const ports = { notifications, chat: chat(), ...q, rateLimits: buckets };
    expect(await deliverNotification(ports, rules, received(body, 2))).toEqual({
      outcome: 'unconfirmed',
    });
    expect(await deliverNotification(ports, rules, received(body, 3))).toEqual({
      outcome: 'already-settled',
    });
    expect(receiver.posts).toHaveLength(0);
    expect(await notifications.get(notification)).toMatchObject({
      status: 'unconfirmed',
      attempts: 1,
      lastError: 'The worker stopped during a try; the message may have been posted',
    });
  });

  it('a message that names no notification is set aside; one whose record is gone is dropped', async () => {
    const q = queues();
    const ports = { notifications, chat: chat(), ...q, rateLimits: buckets };
    expect(await deliverNotification(ports, rules, received('{"user_id":"x"}'))).toEqual({
      outcome: 'failed',
    });
    expect(q.setAside).toEqual(['{"user_id":"x"}']);
    const gone = notificationMessageBody({ userId: 4, notificationId: randomUUID() });
    expect(await deliverNotification(ports, rules, received(gone))).toEqual({
      outcome: 'not-found',
    });
    expect(receiver.posts).toHaveLength(0);
  });

  it('a retry waits for a Retry-After even when a duplicate of the message turns up early', async () => {
    const { notification, body } = await queuedNotification(5);
    receiver.answer({ status: 429, headers: { 'retry-after': '60' } });
    const q = queues();
    const ports = { notifications, chat: chat(), ...q, rateLimits: buckets };
    const first = await deliverNotification(ports, rules, received(body, 1));
    expect(first).toEqual({ outcome: 'retrying', comeBack: true, delayMs: 60_000 });
    const duplicate = await deliverNotification(ports, rules, received(body, 1));
    expect(duplicate.outcome).toBe('busy');
    expect(receiver.posts).toHaveLength(1);
    expect(await notifications.get(notification)).toMatchObject({
      status: 'queued',
      attempts: 1,
      lastError: 'HTTP 429',
    });
  });

  it('a try that lost its claim mid-post (judged dead) records nothing and sets nothing aside', async () => {
    const { notification, body } = await queuedNotification(8);
    const q = queues();
    // While this try posts, another delivery takes it for dead and marks it unconfirmed.
    const judgedDead = {
      post: async () => {
        const current = await notifications.get(notification);
        await notifications.abandon(notification, current?.version ?? -1, new Date());
        return { kind: 'retry' as const, reason: 'HTTP 500' };
      },
    };
    expect(
      await deliverNotification(
        { notifications, chat: judgedDead, ...q, rateLimits: buckets },
        rules,
        received(body, 5),
      ),
    ).toEqual({ outcome: 'already-settled' });
    expect(q.setAside).toEqual([]);
    expect(q.putOff).toEqual([]);
    expect((await notifications.get(notification))?.status).toBe('unconfirmed');
  });

  it('the fifth try of a round marks it failed and sets it aside, however often it was received', async () => {
    const { notification, body } = await queuedNotification(6);
    receiver.answerAlways({ status: 500 });
    let at = Date.now();
    const outcomes: string[] = [];
    const q = queues();
    // Each receive counts twice: as many again were put off waiting for the channel.
    for (let receive = 2; !outcomes.includes('failed') && receive <= 20; receive += 2) {
      const ports = {
        notifications,
        chat: chat(),
        ...q,
        rateLimits: buckets,
        now: () => new Date(at),
      };
      outcomes.push((await deliverNotification(ports, rules, received(body, receive))).outcome);
      at += rules.maxDelayMs + 1000;
    }
    expect(outcomes).toEqual(['retrying', 'retrying', 'retrying', 'retrying', 'failed']);
    expect(q.setAside).toEqual([body]);
    expect(receiver.posts).toHaveLength(5);
    expect(await notifications.get(notification)).toMatchObject({
      status: 'failed',
      attempts: 5,
      roundAttempts: 5,
      lastError: 'HTTP 500',
    });
  });

  it('a webhook URL that is not configured fails at once, and posts nothing', async () => {
    const { body } = await queuedNotification(7);
    const unconfigured = new SlackWebhookChannel(
      () => Promise.reject(new WebhookNotConfigured('no URL in the secret')),
      { timeoutMs: POST_TIMEOUT_MS },
    );
    const q = queues();
    expect(
      await deliverNotification(
        { notifications, chat: unconfigured, ...q, rateLimits: buckets },
        rules,
        received(body),
      ),
    ).toEqual({ outcome: 'failed' });
    expect(q.setAside).toEqual([body]);
  });
});

describe('notifySubmission: nothing half-written', () => {
  it('a queue that fails leaves no record, and the caller gets the error', async () => {
    await putItems(dynamodb, name, [
      toUserFileItem({
        userId: 20,
        id: 1,
        name: 'a.pdf',
        type: 'deck',
        filesize: 5,
        createdAt: '2026-11-01T00:00:00.000Z',
        updatedAt: null,
        isArchived: false,
        location: null,
      }),
    ]);
    const before = await stored();
    await expect(
      notifySubmission(
        {
          userFiles: files,
          notifications,
          notificationQueue: failing({ send: () => Promise.resolve() }, 'send'),
          rateLimits: buckets,
        },
        allowance,
        { userId: 20, fileIds: [1], fundName: null, message: null },
      ),
    ).rejects.toThrow('injected: send failed');
    expect(await stored()).toEqual(before);
  });

  it('a send that failed on its way back, after a worker took the message: it stands (202)', async () => {
    const before = await stored();
    // SQS stored the message and a worker claimed the record; then the answer was lost.
    const lostAnswer = {
      send: async (body: string) => {
        const { user_id: userId, notification_id: notificationId } = JSON.parse(body) as {
          user_id: number;
          notification_id: string;
        };
        await notifications.claim({ userId, notificationId }, 0, new Date(), new Date(), true);
        throw new Error('socket hang up');
      },
    };
    const notification = await notifySubmission(
      { userFiles: files, notifications, notificationQueue: lostAnswer, rateLimits: buckets },
      allowance,
      { userId: 20, fileIds: [1], fundName: null, message: null },
    );
    expect(await notifications.get(notification)).toMatchObject({ status: 'sending' });
    expect((await stored()).length).toBe(before.length + 1);
  });

  it('a record write that landed but lost its answer is queued, not left behind', async () => {
    const sent: string[] = [];
    const notification = await notifySubmission(
      {
        userFiles: files,
        notifications: answerLost(notifications, 'create'),
        notificationQueue: { send: (body) => Promise.resolve(void sent.push(body)) },
        rateLimits: buckets,
      },
      allowance,
      { userId: 20, fileIds: [1], fundName: null, message: null },
    );
    expect(await notifications.get(notification)).toMatchObject({ status: 'queued' });
    expect(sent).toEqual([notificationMessageBody(notification)]);
  });

  it('a record write that fails sends nothing', async () => {
    const sent: string[] = [];
    await expect(
      notifySubmission(
        {
          userFiles: files,
          notifications: failing(notifications, 'create'),
          notificationQueue: { send: (body) => Promise.resolve(void sent.push(body)) },
          rateLimits: buckets,
        },
        allowance,
        { userId: 20, fileIds: [1], fundName: null, message: null },
      ),
    ).rejects.toThrow('injected: create failed');
    expect(sent).toEqual([]);
  });
});

describe('DELIVERY_TRANSITIONS: the table the worker follows', () => {
  const answers: Record<'delivered' | 'retry' | 'rejected', PostOutcome> = {
    delivered: { kind: 'delivered' },
    retry: { kind: 'retry', reason: 'the channel said 503' },
    rejected: { kind: 'rejected', reason: 'the channel said 404' },
  };
  const post = (kind: keyof typeof answers): ChatChannel => ({
    post: () => Promise.resolve(answers[kind]),
  });
  /**
   * A record put in `status` by the use case's own writes, as a worker would leave it; a
   * queued one after `triesBefore` tries of its round that failed.
   */
  async function recordIn(status: NotificationStatus, userId: number, triesBefore: number) {
    const { notification, body } = await queuedNotification(userId);
    const at = new Date();
    const long = new Date(at.getTime() + 60_000);
    const lapsed = new Date(at.getTime() - 1);
    if (status === 'queued') {
      for (let version = 0; version < 2 * triesBefore; version += 2) {
        const tried = await notifications.claim(notification, version, at, long, false);
        if (tried === undefined) throw new Error('claim failed');
        const verdict = { status: 'queued' as const, error: 'x', notBefore: lapsed };
        await notifications.settle(tried, tried.version, at, verdict);
      }
      return { notification, body };
    }
    const claimed = await notifications.claim(
      notification,
      0,
      at,
      status === 'sending' ? lapsed : long,
      true,
    );
    if (claimed === undefined) throw new Error('claim failed');
    if (status === 'sent') await notifications.settle(claimed, claimed.version, at, { status });
    if (status === 'failed') {
      await notifications.settle(claimed, claimed.version, at, { status, error: 'x' });
    }
    if (status === 'unconfirmed') await notifications.abandon(claimed, claimed.version, at);
    return { notification, body };
  }

  it.each<[NotificationStatus, 'delivered' | 'retry' | 'rejected', number, DeliveryEvent[]]>([
    ['queued', 'delivered', 1, ['claim', 'delivered']],
    ['queued', 'retry', 1, ['claim', 'retry']],
    ['queued', 'retry', 5, ['claim', 'give-up']],
    ['queued', 'rejected', 1, ['claim', 'give-up']],
    ['failed', 'delivered', 1, ['claim', 'delivered']],
    ['sending', 'delivered', 2, ['abandon']],
    ['sent', 'delivered', 2, []],
    ['unconfirmed', 'delivered', 2, []],
  ])(
    'from %s, a post that is %s on try %i of its round: %j',
    async (from, answer, tryNo, events) => {
      const userId = 7000 + NOTIFICATION_STATUSES.indexOf(from) * 10 + tryNo;
      const { notification, body } = await recordIn(
        from,
        userId + Math.floor(Math.random() * 1e6),
        tryNo - 1,
      );
      const q = queues();
      await deliverNotification(
        { notifications, chat: post(answer), ...q, rateLimits: buckets },
        rules,
        received(body, tryNo),
      );
      const expected = events.reduce<NotificationStatus>((status, event) => {
        const next = nextStatus(status, event);
        if (next === undefined) throw new Error(`${status} does not allow ${event}`);
        return next;
      }, from);
      expect((await notifications.get(notification))?.status).toBe(expected);
      expect(q.setAside).toHaveLength(events.includes('give-up') ? 1 : 0);
    },
  );

  it('a final status allows no event; only a failed one may be claimed again', () => {
    const events: DeliveryEvent[] = ['claim', 'delivered', 'retry', 'give-up', 'abandon'];
    const allowed = Object.fromEntries(
      NOTIFICATION_STATUSES.map((status) => [
        status,
        events.filter((event) => nextStatus(status, event) !== undefined),
      ]),
    );
    expect(allowed).toEqual({
      queued: ['claim'],
      sending: ['delivered', 'retry', 'give-up', 'abandon'],
      sent: [],
      failed: ['claim'],
      unconfirmed: [],
    });
  });
});

describe("the channel's pace: one post a slot, over every worker", () => {
  // A table of its own: its one channel bucket runs on this describe's clock.
  const paced = `paced-${randomUUID().slice(0, 8)}`;
  const pacedNotifications = new DynamoNotificationRepository(dynamodb, paced);
  const pacedBuckets = new DynamoTokenBuckets(dynamodb, paced);
  const slow: DeliveryRules = {
    ...rules,
    channel: { perSecond: 1, burst: 1 },
    paceWaitMaxMs: 5000,
  };
  beforeAll(async () => {
    await ensureTable(dynamodbEndpoint, paced);
  });

  /** A clock that moves only when the worker waits; the waits it was asked for. */
  function clock() {
    let ms = Date.now();
    const slept: number[] = [];
    return {
      slept,
      now: () => new Date(ms),
      sleep: (wait: number) => {
        slept.push(wait);
        ms += wait;
        return Promise.resolve();
      },
      pass: (wait: number) => {
        ms += wait;
      },
    };
  }

  const queuedOn = (userId: number) => queuedNotification(userId, paced);

  it('two workers at once: the second waits in place for the next second, then posts', async () => {
    const time = clock();
    const [a, b] = [await queuedOn(31), await queuedOn(32)];
    const ports = () => ({
      notifications: pacedNotifications,
      chat: chat(),
      ...queues(),
      rateLimits: pacedBuckets,
      now: time.now,
      sleep: time.sleep,
    });
    const results = await Promise.all([
      deliverNotification(ports(), slow, received(a.body)),
      deliverNotification(ports(), slow, received(b.body)),
    ]);
    expect(results).toEqual([{ outcome: 'sent' }, { outcome: 'sent' }]);
    expect(time.slept).toEqual([1000]);
    expect(receiver.posts).toHaveLength(2);
  });

  it("the channel's own Retry-After holds every worker; a wait longer than a worker may wait puts the message off", async () => {
    const time = clock();
    time.pass(60_000);
    const [a, b] = [await queuedOn(33), await queuedOn(34)];
    receiver.answer({ status: 429, headers: { 'retry-after': '30' }, body: 'rate_limited' });
    const q = queues();
    const ports = {
      notifications: pacedNotifications,
      chat: chat(),
      ...q,
      rateLimits: pacedBuckets,
      now: time.now,
      sleep: time.sleep,
    };
    expect(await deliverNotification(ports, slow, received(a.body))).toEqual({
      outcome: 'retrying',
      comeBack: true,
      delayMs: 30_000,
    });
    // Another notification, a second later: the channel is held for 29 s more, past the
    // 5 s a worker waits in place, so its message comes back then, and nothing is posted.
    time.pass(1000);
    expect(await deliverNotification(ports, slow, received(b.body))).toEqual({
      outcome: 'busy',
      comeBack: true,
      delayMs: 29_000,
    });
    expect(receiver.posts).toHaveLength(1);
    expect((await pacedNotifications.get(b.notification))?.status).toBe('queued');
    // Once the hold is over, it goes out.
    time.pass(29_000);
    expect(await deliverNotification(ports, slow, received(b.body, 2))).toEqual({
      outcome: 'sent',
    });
    expect(time.slept).toEqual([]);
    expect(receiver.posts.map((p) => p.answeredWith)).toEqual([429, 200]);
  });
});
