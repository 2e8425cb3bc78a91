import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { DynamoTokenBuckets } from '#shared/notifications/adapters/dynamo-token-buckets.ts';
import { TOKEN_BUCKET_ITEM } from '#shared/notifications/adapters/token-bucket-item.ts';
import { chatChannelBucketKey, notifyBucketKey } from '#shared/storage/keys.ts';
import {
  type Admission,
  type BucketName,
  type BucketRule,
  notifyRule,
} from '#shared/notifications/token-buckets.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint } = standInClients();
const name = `buckets-${randomUUID().slice(0, 8)}`;
const buckets = new DynamoTokenBuckets(dynamodb, name);
beforeAll(async () => {
  await ensureTable(dynamodbEndpoint, name);
});

/** Three at once, then one every ten seconds. */
const RULE: BucketRule = notifyRule({ burst: 3, perMinute: 6 });
const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const user = (userId: number): BucketName => ({ kind: 'notify', userId });
const ADMITTED: Admission = { admitted: true };
const refused = (retryAfterMs: number): Admission => ({ admitted: false, retryAfterMs });

const stored = async (key: Record<string, string>) =>
  (await dynamodb.send(new GetCommand({ TableName: name, Key: key, ConsistentRead: true }))).Item;

describe('DynamoTokenBuckets: a token bucket per item, on an injected clock', () => {
  it('spends the burst, refuses with the wait for the next token, and refills at the rate', async () => {
    const bucket = user(1);
    const take = (ms: number) => buckets.take(bucket, RULE, at(ms));
    expect([await take(0), await take(0), await take(0)]).toEqual([ADMITTED, ADMITTED, ADMITTED]);
    expect(await take(0)).toEqual(refused(10_000));
    expect(await take(9_999)).toEqual(refused(1));
    // One token back after one interval, and only one.
    expect(await take(10_000)).toEqual(ADMITTED);
    expect(await take(10_000)).toEqual(refused(10_000));
    // A refusal spends nothing: the next token still comes when it was due.
    expect(await take(15_000)).toEqual(refused(5_000));
    expect(await take(20_000)).toEqual(ADMITTED);
    // Idle long enough, the bucket is full again: the whole burst, no more.
    const later = 20_000 + 3 * 10_000;
    expect([await take(later), await take(later), await take(later)]).toEqual([
      ADMITTED,
      ADMITTED,
      ADMITTED,
    ]);
    expect(await take(later)).toEqual(refused(10_000));
  });

  it('never holds more than the burst, however long it was idle', async () => {
    const bucket = user(2);
    expect(await buckets.take(bucket, RULE, at(0))).toEqual(ADMITTED);
    const dayLater = 86_400_000;
    const taken = [];
    for (let i = 0; i < 5; i += 1) taken.push(await buckets.take(bucket, RULE, at(dayLater)));
    expect(taken).toEqual([ADMITTED, ADMITTED, ADMITTED, refused(10_000), refused(10_000)]);
  });

  it('25 takes at once admit exactly the burst: the conditional writes cannot overspend', async () => {
    const rule = notifyRule({ burst: 5, perMinute: 1 });
    const results = await Promise.all(
      Array.from({ length: 25 }, () => buckets.take(user(3), rule, at(0))),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(5);
    const waits = results.flatMap((r) => (r.admitted ? [] : [r.retryAfterMs]));
    // Every refused call is told the same thing: the next token, a minute on.
    expect(waits).toEqual(Array.from({ length: 20 }, () => 60_000));
  });

  it("keeps each sender's bucket apart, beside their items, and lets it expire once full again", async () => {
    const rule = notifyRule({ burst: 2, perMinute: 1 });
    await buckets.take(user(4), rule, at(0));
    await buckets.take(user(4), rule, at(0));
    expect(await buckets.take(user(4), rule, at(0))).toEqual(refused(60_000));
    expect(await buckets.take(user(5), rule, at(0))).toEqual(ADMITTED);
    const item = TOKEN_BUCKET_ITEM.parse(await stored(notifyBucketKey(4)));
    expect(item).toEqual({
      PK: 'USER#4',
      SK: 'LIMIT#notify',
      entity: 'TokenBucket',
      // Full again once both tokens have come back: two minutes on.
      full_at: T0 + 120_000,
      expiration: (T0 + 120_000) / 1000,
    });
  });

  it('holds a channel for its Retry-After: no token before it ends, a shorter hold changes nothing', async () => {
    const channel: BucketName = { kind: 'chat-channel' };
    const pace: BucketRule = { perSecond: 1, burst: 1 };
    const base = 3_600_000;
    await buckets.holdUntil(channel, pace, at(base + 30_000));
    expect(await buckets.take(channel, pace, at(base))).toEqual(refused(30_000));
    await buckets.holdUntil(channel, pace, at(base + 5_000));
    expect(await buckets.take(channel, pace, at(base + 29_000))).toEqual(refused(1_000));
    expect(await buckets.take(channel, pace, at(base + 30_000))).toEqual(ADMITTED);
    expect(await buckets.take(channel, pace, at(base + 30_000))).toEqual(refused(1_000));
    expect(await buckets.take(channel, pace, at(base + 31_000))).toEqual(ADMITTED);
    expect(TOKEN_BUCKET_ITEM.parse(await stored(chatChannelBucketKey()))).toMatchObject({
      PK: 'CHANNEL#chat',
      SK: 'LIMIT#post',
      full_at: T0 + base + 32_000,
    });
  });
});
