import { defineFunction } from '#shared/functions/function-declaration.ts';
import { WORKER_TIMEOUT_SECONDS } from '#shared/notifications/delivery-rules.ts';

/** The notification queue's worker (`NotificationWorker` wires its event source). */
export const deliverNotificationFunction = defineFunction({
  id: 'DeliverNotification',
  entry: 'functions/deliver-notification/handler.ts',
  description: 'Posts each queued submission notification to the chat channel',
  sizing: { memoryMb: 512, timeoutSeconds: WORKER_TIMEOUT_SECONDS },
  table: [
    { items: ['GetItem', 'UpdateItem'], in: 'users' },
    {
      items: ['UpdateItem'],
      in: 'chatChannel',
      why: "the channel's pace, one conditional write a post",
    },
  ],
  notificationQueue: 'consume',
  notificationDeadLetters: 'send',
  chatWebhook: 'read',
  // Its retries' first wait, the webhook's timeout, the channel's pace.
  settings: ['CHAT_RETRY_BASE_SECONDS', 'CHAT_TIMEOUT_SECONDS', 'CHAT_POSTS_PER_SECOND'],
});
