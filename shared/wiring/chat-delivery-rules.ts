import { type DeliveryRules, deliveryRules } from '../notifications/delivery-rules.ts';
import type { HandlerSettings } from '../config/environment.ts';

/** The chat settings a poster reads (the notification worker and the alarm poster). */
export type ChatSettings = Pick<
  HandlerSettings,
  'CHAT_RETRY_BASE_SECONDS' | 'CHAT_TIMEOUT_SECONDS' | 'CHAT_POSTS_PER_SECOND'
>;

/** Both chat posters follow one set of rules, read from the same three settings. */
export const chatDeliveryRules = (settings: ChatSettings): DeliveryRules =>
  deliveryRules({
    retryBaseSeconds: settings.CHAT_RETRY_BASE_SECONDS,
    timeoutSeconds: settings.CHAT_TIMEOUT_SECONDS,
    postsPerSecond: settings.CHAT_POSTS_PER_SECOND,
  });
