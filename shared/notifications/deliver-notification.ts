import { setTimeout as sleepFor } from 'node:timers/promises';
import * as z from 'zod';
import { logger } from '../logger.ts';
import type { MessageQueue } from '../queue/message-queue.ts';
import type { ChatChannel, PostOutcome } from './chat-channel.ts';
import { submissionMessage } from './chat-message.ts';
import { type DeliveryRules, retryDelayMs } from './delivery-rules.ts';
import { ON_RECEIVE } from './delivery-transitions.ts';
import type { NotificationRepository, TryVerdict } from './notification-repository.ts';
import {
  type NotificationRef,
  notificationMessageGroup,
  type SubmissionNotification,
} from './submission-notification.ts';
import type { BucketName, TokenBuckets } from './token-buckets.ts';

export interface DeliveryPorts {
  readonly notifications: NotificationRepository;
  readonly chat: ChatChannel;
  /** The queue the message came from: a retry puts the message off there. */
  readonly notificationQueue: Pick<MessageQueue, 'changeVisibility'>;
  /** Where a message that will not be delivered is set aside, for an operator to redrive. */
  readonly deadLetters: Pick<MessageQueue, 'send'>;
  /** The chat channel's pace, shared by every worker: a post spends one of its tokens. */
  readonly rateLimits: Pick<TokenBuckets, 'take' | 'holdUntil'>;
  readonly now?: () => Date;
  readonly random?: () => number;
  /** Waits in place for the channel's next slot. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const CHANNEL: BucketName = { kind: 'chat-channel' };

/** One received queue message, as the SQS event gives it. */
export interface ReceivedMessage {
  readonly body: string;
  readonly receiptHandle: string;
  /** SQS's ApproximateReceiveCount: 1 on the first receive. */
  readonly receiveCount: number;
}

/**
 * What became of one message. `comeBack` results leave the message on the queue (the worker
 * reports it failed); the others are done with it.
 */
export type DeliveryResult =
  | { readonly outcome: 'sent' | 'already-settled' | 'unconfirmed' | 'failed' | 'not-found' }
  | { readonly outcome: 'retrying' | 'busy'; readonly comeBack: true; readonly delayMs: number };

const MessageBody = z.object({
  user_id: z.int().positive(),
  notification_id: z.string().min(1),
});

const BUSY_RECHECK_MS = 1000;

const refOf = (body: string): NotificationRef | undefined => {
  try {
    const parsed = MessageBody.safeParse(JSON.parse(body));
    return parsed.success
      ? { userId: parsed.data.user_id, notificationId: parsed.data.notification_id }
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Waits, in place, for the channel's next slot and takes it. Undefined once taken; or how
 * long until one comes when that is longer than a worker may wait (the channel's own
 * Retry-After holds it), and the message is put off instead.
 */
async function paceChannel(
  ports: DeliveryPorts,
  rules: DeliveryRules,
  now: () => Date,
): Promise<number | undefined> {
  const sleep = ports.sleep ?? ((ms: number) => sleepFor(ms));
  let waited = 0;
  for (;;) {
    const admission = await ports.rateLimits.take(CHANNEL, rules.channel, now());
    if (admission.admitted) return undefined;
    if (waited + admission.retryAfterMs > rules.paceWaitMaxMs) return admission.retryAfterMs;
    await sleep(admission.retryAfterMs);
    waited += admission.retryAfterMs;
  }
}

/**
 * Delivers one notification's message, at most once, along DELIVERY_TRANSITIONS: the record
 * is the guard. Posts keep to the channel's pace (one slot each, shared by every worker). A
 * try claims the record first (a new version), so a duplicate or a redelivered message finds
 * it claimed or settled and posts nothing. A retry puts the message off (its Retry-After, or
 * backoff), and a Retry-After from the channel holds every worker's posts that long; giving
 * up sets the message aside in the dead-letter queue.
 */
export async function deliverNotification(
  ports: DeliveryPorts,
  rules: DeliveryRules,
  received: ReceivedMessage,
): Promise<DeliveryResult> {
  const now = () => (ports.now ?? (() => new Date()))();
  const ref = refOf(received.body);
  if (ref === undefined) {
    logger.error('A notification message that names no notification was set aside', {
      body: received.body.slice(0, 500),
    });
    await ports.deadLetters.send(received.body);
    return { outcome: 'failed' };
  }
  const group = notificationMessageGroup(ref.userId);
  const comeBackIn = async (
    outcome: 'retrying' | 'busy',
    delayMs: number,
  ): Promise<DeliveryResult> => {
    await ports.notificationQueue.changeVisibility(received.receiptHandle, delayMs);
    return { outcome, comeBack: true, delayMs };
  };

  const found = await ports.notifications.get(ref);
  if (found === undefined) {
    // It was never accepted (queueing failed and the record went), or it expired.
    logger.warn('A queued notification has no record; nothing to send', { ...ref });
    return { outcome: 'not-found' };
  }
  const at = now();
  switch (ON_RECEIVE[found.status]) {
    case 'done':
      return { outcome: 'already-settled' };
    case 'wait-or-abandon': {
      const leaseLeft = Date.parse(found.leaseUntil ?? '') - at.getTime();
      if (leaseLeft > 0) return comeBackIn('busy', leaseLeft + BUSY_RECHECK_MS);
      if (await ports.notifications.abandon(ref, found.version, at)) {
        logger.error('A try stopped before it knew whether it posted; not posting again', {
          ...ref,
        });
        return { outcome: 'unconfirmed' };
      }
      return comeBackIn('busy', BUSY_RECHECK_MS);
    }
    case 'claim-when-due': {
      const wait = Date.parse(found.notBefore ?? '') - at.getTime();
      if (wait > 0) return comeBackIn('busy', wait);
      break;
    }
    case 'claim':
      break;
  }

  const slotIn = await paceChannel(ports, rules, now);
  if (slotIn !== undefined) return comeBackIn('busy', slotIn);
  const claimAt = now();
  const claimed = await ports.notifications.claim(
    ref,
    found.version,
    claimAt,
    new Date(claimAt.getTime() + rules.leaseMs),
    // A failed record back from the dead-letter queue: an operator's redrive, a new round.
    found.status === 'failed',
  );
  if (claimed === undefined) return comeBackIn('busy', BUSY_RECHECK_MS);
  const posted = await ports.chat.post(submissionMessage(claimed));
  if (posted.kind === 'retry' && posted.retryAfterMs !== undefined) {
    await holdChannel(ports, rules, new Date(now().getTime() + posted.retryAfterMs));
  }
  return recordTryOutcome(ports, rules, { ...received, group }, claimed, posted, comeBackIn, now);
}

/**
 * The channel asked for a pause (its Retry-After): no worker posts before it ends. Pacing is
 * a courtesy to the channel, so a store that fails here does not fail the try.
 */
async function holdChannel(ports: DeliveryPorts, rules: DeliveryRules, until: Date) {
  try {
    await ports.rateLimits.holdUntil(CHANNEL, rules.channel, until);
  } catch (error) {
    logger.warn('Could not hold the chat channel for its Retry-After', { error });
  }
}

/**
 * Records how the claimed try ended, and what follows: done when delivered, a retry after its
 * delay, or the dead-letter queue after the last try.
 */
async function recordTryOutcome(
  ports: DeliveryPorts,
  rules: DeliveryRules,
  received: ReceivedMessage & { readonly group: string },
  claimed: SubmissionNotification,
  posted: PostOutcome,
  comeBackIn: (outcome: 'retrying', delayMs: number) => Promise<DeliveryResult>,
  now: () => Date,
): Promise<DeliveryResult> {
  const at = now();
  const context = { userId: claimed.userId, notificationId: claimed.notificationId };
  if (posted.kind === 'delivered') {
    await ports.notifications.settle(claimed, claimed.version, at, { status: 'sent' });
    logger.info('Submission notification sent', { ...context, attempts: claimed.attempts });
    return { outcome: 'sent' };
  }
  const lastTry = posted.kind === 'rejected' || claimed.roundAttempts >= rules.attempts;
  const record = async (verdict: TryVerdict): Promise<boolean> => {
    if (await ports.notifications.settle(claimed, claimed.version, at, verdict)) return true;
    // Only a try judged dead loses its claim, and the lease outlives the worker. Should it
    // happen anyway, the record's newer state stands, and this message is done with.
    logger.error('A try lost its claim before it could record its outcome', {
      ...context,
      reason: posted.reason,
    });
    return false;
  };
  if (!lastTry) {
    const delayMs = retryDelayMs(rules, claimed.roundAttempts, posted.retryAfterMs, ports.random);
    const notBefore = new Date(at.getTime() + delayMs);
    if (!(await record({ status: 'queued', error: posted.reason, notBefore }))) {
      return { outcome: 'already-settled' };
    }
    logger.warn('Submission notification not delivered; will try again', {
      ...context,
      reason: posted.reason,
      delayMs,
    });
    return comeBackIn('retrying', delayMs);
  }
  if (!(await record({ status: 'failed', error: posted.reason }))) {
    return { outcome: 'already-settled' };
  }
  await ports.deadLetters.send(received.body, received.group);
  logger.error('Submission notification failed; its message is in the dead-letter queue', {
    ...context,
    reason: posted.reason,
    attempts: claimed.attempts,
  });
  return { outcome: 'failed' };
}
