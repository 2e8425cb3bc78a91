import type { NotificationRef, SubmissionNotification } from './submission-notification.ts';

/** How one try ended, as the record keeps it. */
export type TryVerdict =
  | { readonly status: 'sent' }
  | { readonly status: 'queued'; readonly error: string; readonly notBefore: Date }
  | { readonly status: 'failed'; readonly error: string };

/** Where notifications are recorded. Each change is conditional on the version read. */
export interface NotificationRepository {
  /**
   * Records a new notification; fails, writing nothing, when its id is taken, or with
   * AccountErased when the sender was erased.
   */
  create(notification: SubmissionNotification): Promise<void>;
  get(ref: NotificationRef): Promise<SubmissionNotification | undefined>;
  /**
   * Removes a notification that could not be queued, while no worker has touched it. False
   * when a worker already has it: the message was queued after all.
   */
  discard(ref: NotificationRef, version: number): Promise<boolean>;
  /**
   * Takes it for one try (`sending`, leased until `leaseUntil`, one more attempt, the first of
   * a round when `newRound`), if it is still at `version`. The claimed record, or undefined
   * when someone changed it first.
   */
  claim(
    ref: NotificationRef,
    version: number,
    at: Date,
    leaseUntil: Date,
    newRound: boolean,
  ): Promise<SubmissionNotification | undefined>;
  /**
   * Records how a claimed try ended. `sent` is recorded whatever happened meanwhile: the
   * message is out. The others only while the claim (`version`) still holds; false if not.
   */
  settle(ref: NotificationRef, version: number, at: Date, verdict: TryVerdict): Promise<boolean>;
  /**
   * Marks a try whose worker stopped before it knew the outcome: it may have been posted.
   * Only while the record is still at `version`; false if not.
   */
  abandon(ref: NotificationRef, version: number, at: Date): Promise<boolean>;
}
