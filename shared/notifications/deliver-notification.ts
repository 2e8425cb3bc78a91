import * as z from 'zod';
import { logger } from '../logger.ts';
import type { MessageQueue } from '../queue/message-queue.ts';
import type { ChatChannel, PostOutcome } from './chat-channel.ts';
import { submissionMessage } from './chat-message.ts';
import { type DeliveryRules, retryDelayMs } from './delivery-rules.ts';
import { ON_RECEIVE } from './delivery-transitions.ts';
import type { NotificationRepository, TryVerdict } from './notification-repository.ts';
import type { NotificationRef, SubmissionNotification } from './submission-notification.ts';

export interface DeliveryPorts {
  readonly notifications: NotificationRepository;
  readonly chat: ChatChannel;
  /** The queue the message came from: a retry puts the message off there. */
  readonly queue: Pick<MessageQueue, 'changeVisibility'>;
  /** Where a message that will not be delivered is set aside, for an operator to redrive. */
  readonly deadLetters: Pick<MessageQueue, 'send'>;
  readonly now?: () => Date;
  readonly random?: () => number;
}

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
 * Delivers one notification's message, at most once, along DELIVERY_TRANSITIONS: the record
 * is the guard. A try claims it first (a new version), so a duplicate or a redelivered
 * message finds it claimed or settled and posts nothing. A retry puts the message off (its
 * Retry-After, or backoff); giving up sets it aside in the dead-letter queue.
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
  const comeBackIn = async (
    outcome: 'retrying' | 'busy',
    delayMs: number,
  ): Promise<DeliveryResult> => {
    await ports.queue.changeVisibility(received.receiptHandle, delayMs);
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

  const claimed = await ports.notifications.claim(
    ref,
    found.version,
    at,
    new Date(at.getTime() + rules.leaseMs),
  );
  if (claimed === undefined) return comeBackIn('busy', BUSY_RECHECK_MS);
  const posted = await ports.chat.post(submissionMessage(claimed));
  return settle(ports, rules, received, claimed, posted, comeBackIn, now);
}

async function settle(
  ports: DeliveryPorts,
  rules: DeliveryRules,
  received: ReceivedMessage,
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
  const lastTry = posted.kind === 'rejected' || received.receiveCount >= rules.attempts;
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
    const delayMs = retryDelayMs(rules, received.receiveCount, posted.retryAfterMs, ports.random);
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
  await ports.deadLetters.send(received.body);
  logger.error('Submission notification failed; its message is in the dead-letter queue', {
    ...context,
    reason: posted.reason,
    attempts: claimed.attempts,
  });
  return { outcome: 'failed' };
}
