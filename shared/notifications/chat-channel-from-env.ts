import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError, optionalEnv } from '../config.ts';
import type { ChatChannel } from './chat-channel.ts';
import { ChatLogChannel } from '../../infra/local/chat-log-channel.ts';
import { SlackWebhookChannel, WebhookNotConfigured } from '../adapters/slack-webhook-channel.ts';

/** A rotated webhook URL reaches running workers within this time. */
const SECRET_MAX_AGE_SECONDS = 300;

/**
 * The chat channel the environment names: CHAT_WEBHOOK_URL (any stage; the local stage takes
 * it from its own environment), else the secret CHAT_WEBHOOK_SECRET_ARN (deployed stages),
 * else the local stage's log file CHAT_LOG_FILE.
 */
export function chatChannelFromEnv(postTimeoutMs: number): ChatChannel {
  const url = optionalEnv('CHAT_WEBHOOK_URL');
  if (url !== undefined) {
    return new SlackWebhookChannel(() => Promise.resolve(url), { timeoutMs: postTimeoutMs });
  }
  const secretArn = optionalEnv('CHAT_WEBHOOK_SECRET_ARN');
  if (secretArn !== undefined) {
    const secrets = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });
    const fromSecret = async (): Promise<string> => {
      const value = await secrets.get(secretArn, { maxAge: SECRET_MAX_AGE_SECONDS });
      const text = typeof value === 'string' ? value.trim() : '';
      if (!text.startsWith('https://')) {
        throw new WebhookNotConfigured(
          "The chat webhook secret holds no https URL: put the channel's incoming-webhook URL in it",
        );
      }
      return text;
    };
    return new SlackWebhookChannel(fromSecret, { timeoutMs: postTimeoutMs });
  }
  const file = optionalEnv('CHAT_LOG_FILE');
  if (file !== undefined) return new ChatLogChannel(file);
  throw new ConfigError('Set CHAT_WEBHOOK_URL, CHAT_WEBHOOK_SECRET_ARN or CHAT_LOG_FILE');
}
