import * as z from 'zod';
import { validationFailed } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction, idempotencyRecords } from '#shared/functions/function-declaration.ts';
import { TOO_MANY_NOTIFICATIONS } from '#shared/notifications/notify-submission.ts';
import { ErrorFromEitherSchema } from '#shared/http/error-bodies.ts';
import {
  NotificationAcceptedSchema,
  notifySubmissionRequest,
} from '#shared/notifications/api/notify-submission.ts';

const notifySubmissionOperation = defineOperation({
  operationId: 'notifySubmission',
  summary: 'Announce a finished submission',
  description:
    'Call once after all uploads are complete: one consolidated chat message covering the ' +
    'files goes out from a queue. The 202 says it is queued and where to follow it. With an ' +
    '`Idempotency-Key`, a retry within 24 hours gets the first 202 and no second message. ' +
    'Each user has an allowance, a few calls at once and then a steady rate (stage ' +
    'settings; by default 5, then 1 a minute); a call beyond it gets a 429 with ' +
    '`Retry-After`, and nothing is recorded or sent.',
  tag: 'Submission notifications',
  origin: 'contract',
  request: notifySubmissionRequest,
  requestExample: {
    file_ids: [42, 43],
    fund_name: 'Acme Growth Fund III',
    message: 'Final deck and the Q3 model.',
  },
  responses: {
    202: jsonAnswer(
      'Queued; the message goes out shortly',
      NotificationAcceptedSchema,
      { notification_id: '3f0c8a7e-5b1d-4c1e-9a43-1f6d2b8e0c55', status: 'queued', file_count: 2 },
      z.object({ location: z.string().describe('Where to follow the notification') }),
    ),
    404: detailAnswer(
      'Some ids name no file of yours; nothing was sent',
      'Files not found: 32, 999999',
    ),
    409: detailAnswer(
      'A request with this Idempotency-Key is still running',
      'A request with this Idempotency-Key is still being processed; retry shortly',
    ),
    422: validationFailed({
      type: 'too_short',
      loc: ['body', 'file_ids'],
      msg: 'List should have at least 1 item after validation, not 0',
      input: [],
      ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
    }),
    429: jsonAnswer(
      'Over your notify allowance: nothing was recorded or sent; send again after `Retry-After` ' +
        'seconds (a replay of an Idempotency-Key is never refused: it sends nothing). Or over ' +
        'the stage’s request rate, answered by API Gateway as `{"message":"Too Many Requests"}` ' +
        'without the header',
      ErrorFromEitherSchema,
      { detail: TOO_MANY_NOTIFICATIONS },
      z.object({
        'retry-after': z
          .string()
          .regex(/^[1-9]\d*$/)
          .optional()
          .describe('Whole seconds until the next call is allowed (always sent with `detail`)')
          .meta({ examples: ['60'] }),
      }),
    ),
  },
});

export const notifySubmissionFunction = defineFunction({
  id: 'NotifySubmission',
  entry: 'functions/notify-submission/handler.ts',
  routes: [
    {
      method: 'POST',
      path: '/api/v1/user/me/file/notify',
      auth: 'jwt',
      operation: notifySubmissionOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  // One batch read of the files; the sender's allowance (UpdateItem, conditional); the
  // record (and its removal if queueing fails).
  table: [
    {
      items: [
        'BatchGetItem',
        'PutItem',
        'ConditionCheckItem',
        'GetItem',
        'DeleteItem',
        'UpdateItem',
      ],
      in: 'users',
      why: "ConditionCheckItem: the sender is not erased; GetItem: a record whose answer was lost, read back before it is queued; UpdateItem: the sender's allowance",
    },
    idempotencyRecords('notifySubmission'),
  ],
  notificationQueue: 'send',
  // The sender's allowance (the stage's `notifyBurst`, `notifyRatePerMinute`).
  // MALWARE_SCANNING: the message says which files the malware scan holds.
  settings: ['NOTIFY_BURST', 'NOTIFY_RATE_PER_MINUTE', 'MALWARE_SCANNING'],
});
