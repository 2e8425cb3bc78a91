import type { FileType } from '../domain/file-type.ts';

export const NOTIFICATION_STATUSES = [
  'queued',
  'sending',
  'sent',
  'failed',
  'unconfirmed',
] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** What the chat message says of one file, as it was when the submission was announced. */
export interface NotifiedFile {
  readonly id: number;
  readonly name: string;
  readonly type: FileType | null;
  readonly size: number;
  /**
   * Why the malware scan held its bytes when it was announced: malware found, or not cleared
   * yet (being scanned, or not judged); absent for a file anyone may download.
   */
  readonly held?: FileHold;
}

export const FILE_HOLDS = ['malware-found', 'not-cleared'] as const;
export type FileHold = (typeof FILE_HOLDS)[number];

/** Names one notification: its sender and its id. */
export interface NotificationRef {
  readonly userId: number;
  readonly notificationId: string;
}

/** One notify call, and where its single chat message is. */
export interface SubmissionNotification extends NotificationRef {
  /** Distinct files, in the order the caller listed them. */
  readonly files: readonly NotifiedFile[];
  readonly fundName: string | null;
  readonly message: string | null;
  readonly status: NotificationStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly sentAt: string | null;
  /** Tries so far, over every round (a redrive from the dead-letter queue starts a round). */
  readonly attempts: number;
  /**
   * Tries of this round. The queue's receives are no count of tries: a message is also
   * received, and put off, while it waits for the channel or a lease.
   */
  readonly roundAttempts: number;
  /** Why the last try did not deliver; for operators, never shown to the sender. */
  readonly lastError: string | null;
  /** Not to be tried again before this (a webhook's Retry-After). */
  readonly notBefore: string | null;
  /** A worker holds it (`sending`) until this time. */
  readonly leaseUntil: string | null;
  /** Bumped by every change, so a claim or a verdict applies only to what it read. */
  readonly version: number;
}

/** A notification as the notify call records it: queued, never tried. */
export const newSubmissionNotification = (
  content: NotificationRef &
    Pick<SubmissionNotification, 'files' | 'fundName' | 'message'> & { readonly at: Date },
): SubmissionNotification => ({
  userId: content.userId,
  notificationId: content.notificationId,
  files: content.files,
  fundName: content.fundName,
  message: content.message,
  status: 'queued',
  createdAt: content.at.toISOString(),
  updatedAt: content.at.toISOString(),
  sentAt: null,
  attempts: 0,
  roundAttempts: 0,
  lastError: null,
  notBefore: null,
  leaseUntil: null,
  version: 0,
});

/** The queue message: just the reference; the record holds the rest. */
export const notificationMessageBody = (ref: NotificationRef): string =>
  JSON.stringify({ user_id: ref.userId, notification_id: ref.notificationId });

/**
 * The queue message's group: its sender. On SQS's fair queues a group is a tenant, and a
 * sender with a backlog does not hold up the others' messages.
 */
export const notificationMessageGroup = (userId: number): string => `user-${userId}`;
