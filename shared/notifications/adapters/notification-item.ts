import * as z from 'zod';
import { FILE_TYPES } from '../../domain/file-type.ts';
import { EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY } from '../../storage/keys.ts';
import {
  FILE_HOLDS,
  NOTIFICATION_STATUSES,
  type SubmissionNotification,
} from '../../notifications/submission-notification.ts';

/** How a submission notification is stored; read only through this schema. */
const NOTIFICATION_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  entity: z.literal('SubmissionNotification'),
  notification_id: z.string(),
  user_id: z.number().int().positive(),
  files: z.array(
    z.object({
      id: z.number().int().positive(),
      name: z.string(),
      type: z.enum(FILE_TYPES).nullable(),
      size: z.number().int().nonnegative(),
      held: z.enum(FILE_HOLDS).optional(),
    }),
  ),
  fund_name: z.string().nullable(),
  message: z.string().nullable(),
  status: z.enum(NOTIFICATION_STATUSES),
  created_at: z.string(),
  updated_at: z.string(),
  sent_at: z.string().nullable(),
  attempts: z.number().int().nonnegative(),
  round_attempts: z.number().int().nonnegative(),
  last_error: z.string().nullable(),
  not_before: z.string().nullable(),
  lease_until: z.string().nullable(),
  version: z.number().int().nonnegative(),
  [EXPIRY_ATTRIBUTE]: z.number().int(),
});

export const fromNotificationItem = (item: unknown): SubmissionNotification => {
  const stored = NOTIFICATION_ITEM.parse(item);
  return {
    userId: stored.user_id,
    notificationId: stored.notification_id,
    files: stored.files,
    fundName: stored.fund_name,
    message: stored.message,
    status: stored.status,
    createdAt: stored.created_at,
    updatedAt: stored.updated_at,
    sentAt: stored.sent_at,
    attempts: stored.attempts,
    roundAttempts: stored.round_attempts,
    lastError: stored.last_error,
    notBefore: stored.not_before,
    leaseUntil: stored.lease_until,
    version: stored.version,
  };
};
