import { defineFunction } from '#shared/functions/function-declaration.ts';

/**
 * Posts the alarm topic's messages to the chat channel; the stack subscribes it to the
 * stage's alarm topic when the stage sets `alarmChat`.
 */
export const postAlarmFunction = defineFunction({
  id: 'PostAlarm',
  entry: 'functions/post-alarm/handler.ts',
  description: "Posts each alarm state change on the stage's alarm topic to the chat channel",
  // Room for the notification worker's five tries and their backoff (15 s to 4 min) in place.
  sizing: { memoryMb: 256, timeoutSeconds: 600 },
  table: [
    {
      items: ['UpdateItem'],
      in: 'chatChannel',
      why: "the channel's pace, one conditional write a post",
    },
  ],
  chatWebhook: 'read',
  // The worker's delivery rules: the first retry's wait, the webhook's timeout, the pace.
  settings: ['CHAT_RETRY_BASE_SECONDS', 'CHAT_TIMEOUT_SECONDS', 'CHAT_POSTS_PER_SECOND'],
});
