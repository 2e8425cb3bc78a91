import * as z from 'zod';
import { NOTIFICATION_STATUSES } from '../submission-notification.ts';
import { pyInt, pyStr } from '../../http/fastapi/pydantic-fields.ts';
import { IdempotencyHeaders } from '../../http/idempotency-headers.ts';

/** One notify call covers at most this many files; the chat message lists the first few. */
export const MAX_FILES_PER_NOTIFICATION = 100;
export const MAX_FUND_NAME_LENGTH = 200;
/** Slack shows at most 3,000 characters in a section; the message gets one of its own. */
export const MAX_NOTIFY_MESSAGE_LENGTH = 2000;

/** POST /api/v1/user/me/file/notify: the contract's NotifySubmissionRequest. */
const NotifySubmissionRequestSchema = z
  .object({
    file_ids: z
      .array(pyInt())
      .min(1)
      .max(MAX_FILES_PER_NOTIFICATION)
      .describe("The caller's files the submission covers; duplicates count once"),
    fund_name: pyStr({ maxLength: MAX_FUND_NAME_LENGTH })
      .nullable()
      .optional()
      .describe('The fund the files were submitted to'),
    message: pyStr({ maxLength: MAX_NOTIFY_MESSAGE_LENGTH })
      .nullable()
      .optional()
      .describe('A note from the submitter, shown as plain text'),
  })
  .meta({ id: 'NotifySubmissionRequest' });

const NotificationStatusSchema = z
  .enum(NOTIFICATION_STATUSES)
  .meta({ id: 'NotificationStatus' })
  .describe(
    '`queued` (waiting or between tries), `sending`, `sent`, `failed` (every try refused), ' +
      '`unconfirmed` (the worker stopped mid-post; not posted again, so never twice)',
  );

/** The 202 body: what was accepted. The contract leaves its shape to us. */
export const NotificationAcceptedSchema = z
  .object({
    notification_id: z.string().describe('Names the notification; see its status at its URL'),
    status: z.literal('queued'),
    file_count: z.int().describe('Distinct files the message covers'),
  })
  .meta({ id: 'NotificationAccepted' });

export type NotificationAcceptedBody = z.output<typeof NotificationAcceptedSchema>;

/** GET …/notify/{notification_id} (our extension): where the message is. */
export const NotificationStatusBodySchema = z
  .object({
    notification_id: z.string(),
    status: NotificationStatusSchema,
    file_count: z.int(),
    file_ids: z.array(z.int()),
    fund_name: z.string().nullable(),
    message: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    sent_at: z.string().nullable(),
  })
  .meta({ id: 'SubmissionNotification' });

export type NotificationStatusBody = z.output<typeof NotificationStatusBodySchema>;

/** GET …/notify/{notification_id}: any text; ids that are not ours (or not UUIDs) are 404s. */
const NotificationPathSchema = z.object({
  notification_id: z
    .string()
    .describe('The `notification_id` the 202 gave')
    .meta({ param: { example: '3f0c8a7e-5b1d-4c1e-9a43-1f6d2b8e0c55' } }),
});

/** What POST /api/v1/user/me/file/notify validates (see `ApiOperation.request`). */
export const notifySubmissionRequest = {
  header: IdempotencyHeaders,
  body: NotifySubmissionRequestSchema,
};

/** What GET …/notify/{notification_id} validates (see `ApiOperation.request`). */
export const getNotificationRequest = { path: NotificationPathSchema };
