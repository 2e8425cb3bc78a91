import type { ChatMessage } from './chat-message.ts';

/** How a post to the chat channel ended. */
export type PostOutcome =
  | { readonly kind: 'delivered' }
  /** Worth another try: a 5xx, a 429, a timeout, no connection. */
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterMs?: number }
  /** No retry will help: the webhook refused the message or is not configured. */
  | { readonly kind: 'rejected'; readonly reason: string };

/** Where consolidated chat messages go: a Slack-compatible incoming webhook, or a local log. */
export interface ChatChannel {
  post(message: ChatMessage): Promise<PostOutcome>;
}
