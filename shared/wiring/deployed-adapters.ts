import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { dynamoDbClient, documentClient } from '../adapters/aws/dynamodb.ts';
import { s3Client } from '../adapters/aws/s3.ts';
import { secretsManagerClient } from '../adapters/aws/secrets-manager.ts';
import { sqsClient } from '../adapters/aws/sqs.ts';
import { DynamoBlockIdAllocator } from '../adapters/dynamo-block-id-allocator.ts';
import { DynamoDealFileRepository } from '../adapters/dynamo-deal-file-repository.ts';
import { DynamoDealRoles } from '../adapters/dynamo-deal-roles.ts';
import { DynamoDirectUploadRepository } from '../adapters/dynamo-direct-upload-repository.ts';
import { DynamoNotificationRepository } from '../adapters/dynamo-notification-repository.ts';
import { DynamoTokenBuckets } from '../adapters/dynamo-token-buckets.ts';
import { DynamoUserFileRepository } from '../adapters/dynamo-user-file-repository.ts';
import { S3BlobStore } from '../adapters/s3-blob-store.ts';
import { SecretsManagerKeyStore } from '../adapters/secrets-manager-key-store.ts';
import { SlackWebhookChannel, WebhookNotConfigured } from '../adapters/slack-webhook-channel.ts';
import { SqsMessageQueue } from '../adapters/sqs-message-queue.ts';
import type { Environment } from '../config/environment.ts';
import { FILE_ID_SEQUENCE } from '../adapters/keys.ts';

type Needs<K extends keyof Environment> = Pick<Environment, K>;

/** A rotated webhook URL reaches running workers within this time. */
const WEBHOOK_SECRET_MAX_AGE_SECONDS = 300;

/** The chat channel's incoming webhook, whose URL is kept in a secret. */
function webhookFromSecret(env: Needs<'CHAT_WEBHOOK_SECRET_ARN' | 'CHAT_TIMEOUT_SECONDS'>) {
  const secrets = new SecretsProvider({ awsSdkV3Client: secretsManagerClient() });
  const url = async (): Promise<string> => {
    const value = await secrets.get(env.CHAT_WEBHOOK_SECRET_ARN, {
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
  return new SlackWebhookChannel(url, { timeoutMs: env.CHAT_TIMEOUT_SECONDS * 1000 });
}

/**
 * How a deployed function builds each adapter, from the variables it needs: a handler entry
 * that asks for an adapter its function's environment list lacks does not compile. Handler
 * entries import this module as a namespace (`import * as deployed`), so each bundle keeps
 * only the builders, and the SDK clients, its function uses. SDK clients are one per
 * container (`#shared/adapters/aws/`).
 */
export const userFiles = (env: Needs<'TABLE_NAME'>) =>
  new DynamoUserFileRepository(documentClient(), env.TABLE_NAME);
export const dealFiles = (env: Needs<'TABLE_NAME'>) =>
  new DynamoDealFileRepository(documentClient(), env.TABLE_NAME);
export const dealRoles = (env: Needs<'TABLE_NAME'>) =>
  new DynamoDealRoles(documentClient(), env.TABLE_NAME);
export const directUploads = (env: Needs<'TABLE_NAME'>) =>
  new DynamoDirectUploadRepository(documentClient(), env.TABLE_NAME);
export const notifications = (env: Needs<'TABLE_NAME'>) =>
  new DynamoNotificationRepository(documentClient(), env.TABLE_NAME);
export const fileIds = (env: Needs<'TABLE_NAME'>) =>
  new DynamoBlockIdAllocator(documentClient(), env.TABLE_NAME, { sequence: FILE_ID_SEQUENCE });
export const blobs = (env: Needs<'BUCKET_NAME'>) => new S3BlobStore(s3Client(), env.BUCKET_NAME);
export const idempotency = (env: Needs<'TABLE_NAME'>) => ({
  client: dynamoDbClient(),
  tableName: env.TABLE_NAME,
});
export const notificationQueue = (env: Needs<'NOTIFY_QUEUE_URL'>) =>
  new SqsMessageQueue(sqsClient(), env.NOTIFY_QUEUE_URL);
export const deadLetters = (env: Needs<'NOTIFY_DLQ_URL'>) =>
  new SqsMessageQueue(sqsClient(), env.NOTIFY_DLQ_URL);
export const realtimeKeys = (env: Needs<'REALTIME_KEYS_SECRET_ARN'>) =>
  new SecretsManagerKeyStore(env.REALTIME_KEYS_SECRET_ARN, { client: secretsManagerClient() });
export const chat = webhookFromSecret;
export const rateLimits = (env: Needs<'TABLE_NAME'>) =>
  new DynamoTokenBuckets(documentClient(), env.TABLE_NAME);
