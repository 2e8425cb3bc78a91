import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SlackWebhookChannel, WebhookNotConfigured } from '../../adapters/slack-webhook-channel.ts';
import type { AdapterSources } from '../adapter-sources.ts';

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
