import { createHash } from 'node:crypto';
import type { NotificationAcceptedBody, NotificationStatusBody } from './notify-submission.ts';
import type { SubmissionAnnouncement } from '../notify-submission.ts';
import type { SubmissionNotification } from '../submission-notification.ts';

/** Where a notification's status is read (our extension to the contract). */
export const notificationPath = (notificationId: string): string =>
  `/api/v1/user/me/file/notify/${encodeURIComponent(notificationId)}`;

/** The 202 body. */
export const toAcceptedBody = (n: SubmissionNotification): NotificationAcceptedBody => ({
  notification_id: n.notificationId,
  status: 'queued',
  file_count: n.files.length,
});

/** What the sender may see of their notification: not why a webhook refused it. */
export const toStatusBody = (n: SubmissionNotification): NotificationStatusBody => ({
  notification_id: n.notificationId,
  status: n.status,
  file_count: n.files.length,
  file_ids: n.files.map((file) => file.id),
  fund_name: n.fundName,
  message: n.message,
  created_at: n.createdAt,
  updated_at: n.updatedAt,
  sent_at: n.sentAt,
});

/** What makes two notify calls the same request, for Idempotency-Key replays. */
export const announcementFingerprint = (a: SubmissionAnnouncement): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        // JSON has no bigint: an id beyond the safe range goes in as its digits.
        a.fileIds.map((id) => (typeof id === 'bigint' ? String(id) : id)),
        a.fundName,
        a.message,
      ]),
    )
    .digest('base64url');
