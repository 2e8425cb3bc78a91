/**
 * The largest values the domain's limits allow, with the worst text JSON can hold (each
 * character of a name escaped to six bytes): what the routes' files of facts build their
 * largest answers from (`largestBody`), and test/unit/largest-answers.test.ts holds against
 * Lambda's 6 MB.
 */
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import { toDealFileBody } from '#shared/deal-files/api/deal-file-response.ts';
import {
  MAX_FILES_PER_NOTIFICATION,
  MAX_FUND_NAME_LENGTH,
  MAX_NOTIFY_MESSAGE_LENGTH,
} from '#shared/notifications/api/notify-submission.ts';
import { newSubmissionNotification } from '#shared/notifications/submission-notification.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';

/** Names are at most 255 characters; a control character is six bytes in JSON. */
const WORST_NAME = '\u0001'.repeat(255);
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const AT = '2026-11-24T06:32:48.123Z';
/** S3's longest bucket name is 63 characters. */
const WORST_LOCATION = `s3://${'b'.repeat(63)}/users/${String(MAX_ID)}/files/${String(MAX_ID)}`;

const worstUserFile: UserFile = {
  id: MAX_ID,
  userId: MAX_ID,
  name: WORST_NAME,
  type: 'financials',
  createdAt: AT,
  updatedAt: AT,
  isArchived: true,
  filesize: MAX_UPLOAD_BYTES,
  location: WORST_LOCATION,
};
const worstDealFile: DealFile = { ...worstUserFile, groupId: MAX_ID, dealId: MAX_ID };

export const largestUserFileBody = () => toUserFileBody(worstUserFile);
export const largestDealFileBody = () => toDealFileBody(worstDealFile);

/** A submission of the most files, each of the longest name, with the longest texts. */
export const largestNotification = newSubmissionNotification({
  userId: MAX_ID,
  notificationId: crypto.randomUUID(),
  files: Array.from({ length: MAX_FILES_PER_NOTIFICATION }, (_, i) => ({
    id: MAX_ID - i,
    name: WORST_NAME,
    type: 'financials' as const,
    size: MAX_UPLOAD_BYTES,
  })),
  fundName: '\u0001'.repeat(MAX_FUND_NAME_LENGTH),
  message: '\u0001'.repeat(MAX_NOTIFY_MESSAGE_LENGTH),
  at: new Date(AT),
});
