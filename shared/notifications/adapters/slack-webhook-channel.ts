import type { ChatChannel, PostOutcome } from '../chat-channel.ts';
import type { ChatMessage } from '../chat-message.ts';
import { parseRetryAfter } from '../retry-after.ts';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/** Thrown by a webhook source that holds no usable URL: retrying will not help. */
export class WebhookNotConfigured extends Error {
  override name = 'WebhookNotConfigured';
}

export interface SlackWebhookOptions {
  /** Gives up on an answer after this long; Slack answers in well under a second. */
  readonly timeoutMs: number;
  readonly now?: () => Date;
}

/** Slack's own answers are a short text (`invalid_blocks`); enough of it to say why. */
const reasonOf = async (response: Response): Promise<string> => {
  const body = (await response.text().catch(() => '')).slice(0, 200).trim();
  return `HTTP ${response.status}${body === '' ? '' : `: ${body}`}`;
};

/**
 * A Slack-compatible incoming webhook. 2xx is delivered; 429, 408 and 5xx are retried (after
 * their Retry-After when they give one), as are timeouts and lost connections; any other
 * answer is final. The URL is a credential: it never appears in an outcome or a log.
 */
export class SlackWebhookChannel implements ChatChannel {
  private readonly url: () => Promise<string>;
  private readonly options: SlackWebhookOptions;

  constructor(url: () => Promise<string>, options: SlackWebhookOptions) {
    this.url = url;
    this.options = options;
  }

  async post(message: ChatMessage): Promise<PostOutcome> {
    let url: string;
    try {
      url = await this.url();
    } catch (error) {
      if (error instanceof WebhookNotConfigured) return { kind: 'rejected', reason: error.message };
      return { kind: 'retry', reason: `Could not read the webhook URL: ${String(error)}` };
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(message),
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      return {
        kind: 'retry',
        reason: timedOut
          ? `No answer within ${this.options.timeoutMs} ms`
          : `Could not reach the webhook: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
      };
    }
    if (response.ok) {
      await response.body?.cancel();
      return { kind: 'delivered' };
    }
    const reason = await reasonOf(response);
    if (response.status === 429 || response.status === 408 || response.status >= 500) {
      const retryAfterMs = parseRetryAfter(
        response.headers.get('retry-after'),
        (this.options.now ?? (() => new Date()))(),
      );
      return retryAfterMs === undefined
        ? { kind: 'retry', reason }
        : { kind: 'retry', reason, retryAfterMs };
    }
    return { kind: 'rejected', reason };
  }
}

/** A rotated webhook URL reaches running workers within this time. */
const WEBHOOK_SECRET_MAX_AGE_SECONDS = 300;

/** The chat channel's incoming webhook, whose URL is kept in a secret. */
export const chat = ({
  secretsManager,
  CHAT_WEBHOOK_SECRET_ARN,
  CHAT_TIMEOUT_SECONDS,
}: Pick<AdapterSources, 'secretsManager' | 'CHAT_WEBHOOK_SECRET_ARN' | 'CHAT_TIMEOUT_SECONDS'>) => {
  const secrets = new SecretsProvider({ awsSdkV3Client: secretsManager() });
  const url = async (): Promise<string> => {
    const value = await secrets.get(CHAT_WEBHOOK_SECRET_ARN, {
      maxAge: WEBHOOK_SECRET_MAX_AGE_SECONDS,
    });
    const text = typeof value === 'string' ? value.trim() : '';
    if (!text.startsWith('https://')) {
      throw new WebhookNotConfigured(
        "The chat webhook secret holds no https URL: put the channel's incoming-webhook URL in it",
      );
    }
    return text;
  };
  return new SlackWebhookChannel(url, { timeoutMs: CHAT_TIMEOUT_SECONDS * 1000 });
};
