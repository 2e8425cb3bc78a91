import type { NotificationStatus } from './submission-notification.ts';

/** What happens to a notification on its way to the chat channel. */
export type DeliveryEvent =
  /** A worker takes it for one try, with a lease. */
  | 'claim'
  /** The channel took the message. */
  | 'delivered'
  /** No answer (5xx, 429, timeout) and tries are left: back on the queue. */
  | 'retry'
  /** Refused for good, or the round's last try failed: set aside for an operator. */
  | 'give-up'
  /** Its worker stopped mid-try (the lease ran out): it may have posted. */
  | 'abandon';

/**
 * The delivery state machine: from each status, the events it allows and where they lead.
 * A status with no event is final. `failed` may be claimed again when an operator redrives
 * its message; `unconfirmed` never is, since the message may already be out.
 */
const DELIVERY_TRANSITIONS = {
  queued: { claim: 'sending' },
  sending: { delivered: 'sent', retry: 'queued', 'give-up': 'failed', abandon: 'unconfirmed' },
  failed: { claim: 'sending' },
  sent: {},
  unconfirmed: {},
} as const satisfies {
  readonly [S in NotificationStatus]: { readonly [E in DeliveryEvent]?: NotificationStatus };
};

/** The status an event leads to, or undefined when the status does not allow it. */
export function nextStatus(
  from: NotificationStatus,
  event: DeliveryEvent,
): NotificationStatus | undefined {
  const allowed: { readonly [E in DeliveryEvent]?: NotificationStatus } =
    DELIVERY_TRANSITIONS[from];
  return allowed[event];
}

/** What a worker does with a received message, by the status of its record. */
export const ON_RECEIVE = {
  /** Claim it once its Retry-After has passed. */
  queued: 'claim-when-due',
  /** A redriven message: claim it now. */
  failed: 'claim',
  /** Wait for the lease; once it has run out, the try is abandoned. */
  sending: 'wait-or-abandon',
  sent: 'done',
  unconfirmed: 'done',
} as const satisfies { readonly [S in NotificationStatus]: string };
