import { MAX_VISIBILITY_MS } from '../queue/message-queue.ts';
import type { BucketRule } from './token-buckets.ts';

/** How a notification's message is tried, on AWS and on the local stage alike. */
export interface DeliveryRules {
  /** Tries per round; the queue's redrive policy allows a few more, for workers that crash. */
  readonly attempts: number;
  /** The wait after the first failed try; it doubles after each, with jitter. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A post gives up after this long and counts as a failed try. */
  readonly postTimeoutMs: number;
  /**
   * How long a try holds the record: longer than the worker may run, so a try whose lease
   * ran out has surely died (Lambda stopped it), and none is judged dead while still posting.
   */
  readonly leaseMs: number;
  /** The channel's pace, shared by every worker: a post spends one token. */
  readonly channel: BucketRule;
  /**
   * The longest a worker waits in place for the channel's next slot; a longer wait (the
   * channel's own Retry-After) puts the message off instead. It leaves the post its timeout
   * within the worker's.
   */
  readonly paceWaitMaxMs: number;
}

/** The worker function's timeout; the stack sets it from this. */
export const WORKER_TIMEOUT_SECONDS = 30;

/**
 * Messages a worker takes at once (the event source's batch size, and the local queue's).
 * One: a paced worker holds each message about a second, and a message held is out of the
 * fair queue's reach, so large batches would put one sender's backlog in flight ahead of
 * everyone else again. Two workers at most (the event source's maxConcurrency) keep the
 * channel busy.
 */
export const WORKER_BATCH_SIZE = 1;
/** The event source's maximum concurrency: the lowest Lambda allows. */
export const WORKER_CONCURRENCY = 2;

/** The longest a message is put off: SQS counts 12 hours of invisibility from its receipt. */
const MAX_PUT_OFF_MS = MAX_VISIBILITY_MS - 15 * 60 * 1000;

/** Tries per round, counted on the record: the stack sets the queue's maxReceiveCount from it. */
export const DELIVERY_ATTEMPTS = 5;
/**
 * Receives the queue allows beyond the tries before SQS itself sets a message aside: a
 * message is received without a try while it waits for a lease or for the channel (a
 * webhook's Retry-After longer than a worker waits in place puts every waiting message off).
 */
export const REDRIVE_SLACK = 10;

/**
 * The rules, from the first retry's wait (CHAT_RETRY_BASE_SECONDS, 30 on a deployed stage:
 * waits of 15–30 s, 30–60 s, 1–2 min and 2–4 min between the five tries; the local stage
 * shortens it), the post timeout (CHAT_TIMEOUT_SECONDS, 10) and the channel's pace
 * (CHAT_POSTS_PER_SECOND, 1: Slack's incoming webhooks take one message a second).
 */
export function deliveryRules(settings: {
  readonly retryBaseSeconds: number;
  readonly timeoutSeconds: number;
  readonly postsPerSecond: number;
}): DeliveryRules {
  const postTimeoutMs = settings.timeoutSeconds * 1000;
  return {
    attempts: DELIVERY_ATTEMPTS,
    baseDelayMs: settings.retryBaseSeconds * 1000,
    maxDelayMs: 15 * 60 * 1000,
    postTimeoutMs,
    leaseMs: WORKER_TIMEOUT_SECONDS * 1000 + 5000,
    // Slack allows short bursts but promises nothing for them: one post per interval.
    channel: { perSecond: settings.postsPerSecond, burst: 1 },
    paceWaitMaxMs: Math.max(0, WORKER_TIMEOUT_SECONDS * 1000 - postTimeoutMs - 5000),
  };
}

/**
 * The wait after failed try `attempt` (1-based): exponential backoff with equal jitter, as
 * AWS advises, and never less than the webhook's Retry-After (up to nearly SQS's 12 hours).
 * The jitter spreads messages that one rate limit turned away, so they do not all come back
 * in the same second.
 */
export function retryDelayMs(
  rules: DeliveryRules,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(rules.maxDelayMs, rules.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const backoff = ceiling / 2 + random() * (ceiling / 2);
  return Math.min(Math.max(retryAfterMs ?? 0, backoff), MAX_PUT_OFF_MS);
}
