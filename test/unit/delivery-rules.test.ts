import { describe, expect, it } from 'vitest';
import { readEnvironment } from '#shared/config/environment.ts';
import { deliveryRules, retryDelayMs } from '#shared/notifications/delivery-rules.ts';
import { parseRetryAfter } from '#shared/notifications/retry-after.ts';

const NOW = new Date('2026-11-21T10:00:00.000Z');

describe('parseRetryAfter', () => {
  it.each([
    [null, undefined],
    ['1', 1000],
    [' 30 ', 30_000],
    ['0', 0],
    ['Sat, 21 Nov 2026 10:00:05 GMT', 5000],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
  ])('%s → %s ms', (header, ms) => {
    expect(parseRetryAfter(header, NOW)).toBe(ms);
  });
});

describe('retryDelayMs', () => {
  const rules = {
    attempts: 5,
    baseDelayMs: 30_000,
    maxDelayMs: 900_000,
    postTimeoutMs: 10_000,
    leaseMs: 15_000,
    channel: { perSecond: 1, burst: 1 },
    paceWaitMaxMs: 15_000,
  };

  it('waits at least what a Retry-After asks, up to 15 minutes short of SQS’s 12 hours', () => {
    expect(retryDelayMs(rules, 1, 60_000, () => 0)).toBe(60_000);
    // A short Retry-After still gets the backoff and its jitter, so a crowd turned away
    // together does not come back together.
    expect(retryDelayMs(rules, 1, 1000, () => 0)).toBe(15_000);
    expect(retryDelayMs(rules, 1, 1000, () => 1)).toBe(30_000);
    expect(retryDelayMs(rules, 1, 86_400_000)).toBe(42_300_000);
  });

  it('backs off exponentially with equal jitter, capped at 15 minutes', () => {
    const bounds = (attempt: number) => [
      retryDelayMs(rules, attempt, undefined, () => 0),
      retryDelayMs(rules, attempt, undefined, () => 1),
    ];
    expect(bounds(1)).toEqual([15_000, 30_000]);
    expect(bounds(2)).toEqual([30_000, 60_000]);
    expect(bounds(4)).toEqual([120_000, 240_000]);
    expect(bounds(10)).toEqual([450_000, 900_000]);
  });
});

describe('deliveryRules', () => {
  it('on the deployed defaults: 30 s backoff, 10 s posts, the record held past the worker’s timeout, one post a second', () => {
    const env = readEnvironment(
      ['CHAT_RETRY_BASE_SECONDS', 'CHAT_TIMEOUT_SECONDS', 'CHAT_POSTS_PER_SECOND'],
      {},
    );
    expect(
      deliveryRules({
        retryBaseSeconds: env.CHAT_RETRY_BASE_SECONDS,
        timeoutSeconds: env.CHAT_TIMEOUT_SECONDS,
        postsPerSecond: env.CHAT_POSTS_PER_SECOND,
      }),
    ).toEqual({
      attempts: 5,
      baseDelayMs: 30_000,
      maxDelayMs: 900_000,
      postTimeoutMs: 10_000,
      leaseMs: 35_000,
      channel: { perSecond: 1, burst: 1 },
      // The worker's 30 s, less the post's 10 s and 5 s to record the outcome.
      paceWaitMaxMs: 15_000,
    });
  });
});
