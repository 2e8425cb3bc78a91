import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import {
  getNotificationRequest,
  NotificationStatusBodySchema,
} from '#shared/notifications/api/notify-submission.ts';

const getNotificationOperation = defineOperation({
  operationId: 'getNotification',
  summary: 'Follow a submission notification',
  description: 'Where the chat message of one notify call is: queued, sending, sent or failed.',
  tag: 'Submission notifications',
  origin: 'extension',
  request: getNotificationRequest,
  responses: {
    200: jsonAnswer('The notification as it stands', NotificationStatusBodySchema, {
      notification_id: '3f0c8a7e-5b1d-4c1e-9a43-1f6d2b8e0c55',
      status: 'sent',
      file_count: 2,
      file_ids: [42, 43],
      fund_name: 'Acme Growth Fund III',
      message: 'Final deck and the Q3 model.',
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:02.000Z',
      sent_at: '2026-11-21T10:00:02.000Z',
    }),
    404: detailAnswer('No notification of yours has this id', 'Not Found'),
  },
});

export const getNotificationFunction = defineFunction({
  id: 'GetNotification',
  entry: 'functions/get-notification/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/file/notify/{notification_id}',
      auth: 'jwt',
      operation: getNotificationOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [{ items: ['GetItem'], in: 'users' }],
});
