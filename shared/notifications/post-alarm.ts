import { setTimeout as sleepFor } from 'node:timers/promises';
import { logger } from '../logger.ts';
import type { ChatChannel } from './chat-channel.ts';
import type { ChatMessage } from './chat-message.ts';
import { type DeliveryRules, retryDelayMs } from './delivery-rules.ts';
import type { BucketName, TokenBuckets } from './token-buckets.ts';

export interface AlarmPostPorts {
  readonly chat: ChatChannel;
  /** The chat channel's pace, shared with the notification worker: a post spends one token. */
  readonly rateLimits: Pick<TokenBuckets, 'take' | 'holdUntil'>;
  readonly now?: () => Date;
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** How posting one alarm's message ended. */
export type AlarmPostResult =
  | { readonly outcome: 'posted'; readonly tries: number }
  | { readonly outcome: 'not-posted'; readonly tries: number; readonly reason: string };

/** The notification worker's bucket: alarms and submissions keep to one pace together. */
const CHANNEL: BucketName = { kind: 'chat-channel' };

/** Time kept back after the last post's timeout, for the function to log and return. */
const FINISH_MS = 2000;

/**
 * Waits in place for the channel's next slot and takes it; false when the wait would leave
 * no time for the post.
 */
async function takeSlot(
  ports: AlarmPostPorts,
  rules: DeliveryRules,
  timeLeftMs: () => number,
): Promise<boolean> {
  const now = ports.now ?? (() => new Date());
  const sleep = ports.sleep ?? ((ms: number) => sleepFor(ms));
  for (;;) {
    const admission = await ports.rateLimits.take(CHANNEL, rules.channel, now());
    if (admission.admitted) return true;
    if (admission.retryAfterMs + rules.postTimeoutMs + FINISH_MS > timeLeftMs()) return false;
    await sleep(admission.retryAfterMs);
  }
}

/**
 * Posts one alarm's message to the chat channel by the notification worker's rules: each try
 * takes a slot of the channel's shared pace, a webhook's Retry-After holds every poster that
 * long, and a failed try is followed by the worker's backoff, for at most its number of
 * tries. The waits happen in place (an alarm has no queue to put it off on), so it gives up
 * early when the next wait and post would not end within `timeLeftMs`. A rejected post (the
 * webhook refused it, or none is configured) is not tried again.
 */
export async function postAlarm(
  ports: AlarmPostPorts,
  rules: DeliveryRules,
  message: ChatMessage,
  timeLeftMs: () => number,
): Promise<AlarmPostResult> {
  const now = ports.now ?? (() => new Date());
  const sleep = ports.sleep ?? ((ms: number) => sleepFor(ms));
  let reason = 'the channel had no free slot in the time left';
  for (let tries = 1; ; tries += 1) {
    if (!(await takeSlot(ports, rules, timeLeftMs))) {
      return { outcome: 'not-posted', tries: tries - 1, reason };
    }
    const posted = await ports.chat.post(message);
    if (posted.kind === 'delivered') return { outcome: 'posted', tries };
    reason = posted.reason;
    if (posted.kind === 'rejected' || tries >= rules.attempts) {
      return { outcome: 'not-posted', tries, reason };
    }
    if (posted.retryAfterMs !== undefined) {
      await holdChannel(ports, rules, new Date(now().getTime() + posted.retryAfterMs));
    }
    const delayMs = retryDelayMs(rules, tries, posted.retryAfterMs, ports.random);
    if (delayMs + rules.postTimeoutMs + FINISH_MS > timeLeftMs()) {
      return { outcome: 'not-posted', tries, reason };
    }
    logger.warn('Alarm not posted to chat; will try again', { reason, tries, delayMs });
    await sleep(delayMs);
  }
}

/** The channel asked for a pause: pacing is a courtesy, so a store that fails here is logged. */
async function holdChannel(ports: AlarmPostPorts, rules: DeliveryRules, until: Date) {
  try {
    await ports.rateLimits.holdUntil(CHANNEL, rules.channel, until);
  } catch (error) {
    logger.warn('Could not hold the chat channel for its Retry-After', { error });
  }
}
