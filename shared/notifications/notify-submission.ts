import { randomUUID } from 'node:crypto';
import { AccountErased, NotFound, RateLimited } from '../domain/outcome.ts';
import { type FileScan, scanStandingOf } from '../domain/file-scan.ts';
import { readWithRetries } from '../domain/read-with-retries.ts';
import { logger } from '../logger.ts';
import type { MessageQueue } from '../queue/message-queue.ts';
import type { UserFileRepository } from '../user-files/user-file-repository.ts';
import type { NotificationRepository } from './notification-repository.ts';
import {
  type FileHold,
  newSubmissionNotification,
  notificationMessageBody,
  notificationMessageGroup,
  type SubmissionNotification,
} from './submission-notification.ts';
import type { BucketRule, TokenBuckets } from './token-buckets.ts';

export interface NotifyPorts {
  readonly userFiles: Pick<UserFileRepository, 'getMany'>;
  readonly notifications: NotificationRepository;
  readonly notificationQueue: Pick<MessageQueue, 'send'>;
  /** Each sender's allowance: a token bucket per user, spent by every call that would send. */
  readonly rateLimits: Pick<TokenBuckets, 'take'>;
  /** Whether the stage scans stored files (absent: it does not): the message says which it holds. */
  readonly scanning?: boolean;
  readonly now?: () => Date;
  readonly newId?: () => string;
}

/** The `detail` of a refused call; when to come back is in its Retry-After. */
export const TOO_MANY_NOTIFICATIONS =
  'Too many notifications; retry after the seconds in Retry-After';

export interface SubmissionAnnouncement {
  readonly userId: number;
  /**
   * As the client named them: an id beyond the safe range (a bigint) is one no file has,
   * since ids are allocated within it, and is reported missing with its exact digits.
   */
  readonly fileIds: readonly (number | bigint)[];
  readonly fundName: string | null;
  readonly message: string | null;
}

/** Why the scan holds a file, in the message's terms; undefined when it holds nothing. */
function holdOf(scan: FileScan | undefined): FileHold | undefined {
  const standing = scanStandingOf(scan);
  if (standing === 'clean' || standing === 'released') return undefined;
  return standing === 'THREATS_FOUND' ? 'malware-found' : 'not-cleared';
}

const notFound = (ids: readonly (number | bigint)[]): NotFound =>
  new NotFound(
    ids.length === 1 ? `File not found: ${ids.join('')}` : `Files not found: ${ids.join(', ')}`,
  );

/**
 * Writes the record. A write can land and lose its answer (the SDK's retry then finds the key
 * taken): a consistent read decides, so a record that is there is queued, not left behind.
 */
async function recordOnce(ports: NotifyPorts, notification: SubmissionNotification) {
  try {
    await ports.notifications.create(notification);
  } catch (error) {
    const found = await readWithRetries(() => ports.notifications.get(notification)).then(
      (record) => record,
      (readError: unknown) => {
        logger.error('Could not tell whether a notification was recorded', {
          notificationId: notification.notificationId,
          error,
          readError,
        });
        return undefined;
      },
    );
    if (found?.createdAt !== notification.createdAt) throw error;
  }
}

/**
 * Records the submission and queues its one chat message. Every id must be one of the
 * caller's files (one batch read), or nothing is recorded or sent: a 404 that names the ids,
 * which says nothing of anyone else's files. Then the call spends a token of the sender's
 * allowance, or is refused (RateLimited) with nothing recorded or queued; a call refused for
 * its ids spends nothing, since it would send nothing. The record comes first, so the worker always
 * finds it; if queueing then fails, the record goes again and the caller gets a 5xx, unless
 * a worker already took the record: then the send failed only in its answer, and it stands.
 */
export async function notifySubmission(
  ports: NotifyPorts,
  /** How many calls a sender may make at once, and how fast the allowance comes back. */
  allowance: BucketRule,
  announcement: SubmissionAnnouncement,
): Promise<SubmissionNotification> {
  const named = [...new Set(announcement.fileIds)];
  const ids = named.filter((id): id is number => typeof id === 'number');
  const found = new Map(
    (await ports.userFiles.getMany(announcement.userId, ids)).map((file) => [file.id, file]),
  );
  const missing = named.filter((id) => typeof id === 'bigint' || !found.has(id));
  if (missing.length > 0) throw notFound(missing);

  const at = (ports.now ?? (() => new Date()))();
  const admission = await ports.rateLimits
    .take({ kind: 'notify', userId: announcement.userId }, allowance, at)
    .catch((error: unknown) => {
      // Erased since the files were read: they are gone, as the 404 says.
      throw error instanceof AccountErased ? notFound(named) : error;
    });
  if (!admission.admitted) throw new RateLimited(TOO_MANY_NOTIFICATIONS, admission.retryAfterMs);

  const notification = newSubmissionNotification({
    userId: announcement.userId,
    notificationId: (ports.newId ?? randomUUID)(),
    files: ids.map((id) => {
      const file = found.get(id);
      if (file === undefined) throw notFound([id]);
      const held = ports.scanning === true ? holdOf(file.scan) : undefined;
      return {
        id,
        name: file.name,
        type: file.type,
        size: file.filesize,
        ...(held === undefined ? {} : { held }),
      };
    }),
    fundName: announcement.fundName,
    message: announcement.message,
    at,
  });
  await recordOnce(ports, notification).catch((error: unknown) => {
    // Erased since the files were read: they are gone, as the 404 says.
    throw error instanceof AccountErased ? notFound(named) : error;
  });
  try {
    await ports.notificationQueue.send(
      notificationMessageBody(notification),
      notificationMessageGroup(notification.userId),
    );
  } catch (error) {
    const context = { notificationId: notification.notificationId, userId: notification.userId };
    let discarded: boolean;
    try {
      discarded = await ports.notifications.discard(notification, notification.version);
    } catch (cleanup) {
      logger.error('A notification that could not be queued is still recorded', {
        ...context,
        error: cleanup,
      });
      throw error;
    }
    // The send failed only on its way back: the message is queued, and a worker has it.
    if (!discarded) {
      logger.warn('The queue reported a failure, but a worker already took the message', {
        ...context,
        error,
      });
      return notification;
    }
    throw error;
  }
  return notification;
}
