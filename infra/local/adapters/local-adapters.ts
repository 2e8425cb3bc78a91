import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DOCUMENT_TRANSLATION } from '#shared/storage/aws/dynamodb.ts';
import { sdkLogger } from '#shared/storage/aws/s3.ts';
import { SlackWebhookChannel } from '#shared/notifications/adapters/slack-webhook-channel.ts';
import type { MessageQueue } from '#shared/queue/message-queue.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { SERVICE_ADAPTER_BUILDERS } from '#shared/wiring/service-adapter-builders.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import { ChatLogChannel } from './chat-log-channel.ts';
import { LOCAL_REGION, s3ClientOptions } from '../stage/stand-ins.ts';
import type { Credentials } from '../sigv4-check.ts';
import { FileKeyStore } from './file-key-store.ts';
import { trailTableNameOf } from '../dynamodb/dynamodb-local.ts';

/** The handlers' SDK clients, at the endpoints they reach the stand-ins by; tests watch them. */
export type LocalClients = ReturnType<typeof localClients>;

export function localClients(
  endpoints: { readonly dynamodb: string; readonly s3: string },
  credentials: Credentials,
) {
  const local = { region: LOCAL_REGION, credentials };
  return {
    dynamodb: new DynamoDBClient({ ...local, endpoint: endpoints.dynamodb }),
    s3: new S3Client({ ...local, ...s3ClientOptions(endpoints.s3), logger: sdkLogger }),
  };
}

export interface LocalAdapterOptions {
  readonly clients: LocalClients;
  readonly tableName: string;
  readonly trailRetentionDays: number;
  readonly bucket: string;
  readonly notifications: { readonly queue: MessageQueue; readonly deadLetters: MessageQueue };
  readonly realtimeKeysFile: string;
  readonly chatWebhookUrl?: string;
  readonly chatLogFile: string;
  readonly chatTimeoutSeconds: number;
}

/**
 * The deployed adapters from the one composition root, on DynamoDB's and S3's stand-ins, with
 * ones for SQS, Secrets Manager and, without a webhook, the chat channel (adapters/README.md).
 */
export function localAdapters(options: LocalAdapterOptions): ServiceAdapters {
  const { dynamodb, s3 } = options.clients;
  const documents = DynamoDBDocumentClient.from(dynamodb, DOCUMENT_TRANSLATION);
  const webhook = options.chatWebhookUrl;
  const sources = {
    TABLE_NAME: options.tableName,
    TRAIL_TABLE_NAME: trailTableNameOf(options.tableName),
    ACCESS_TRAIL_RETENTION_DAYS: options.trailRetentionDays,
    BUCKET_NAME: options.bucket,
    TRAIL_DIGEST_BUCKET_NAME: options.bucket,
    dynamodb: () => dynamodb,
    documents: () => documents,
    s3: () => s3,
  };
  return composeAdapters(sources, {
    ...SERVICE_ADAPTER_BUILDERS,
    notificationQueue: () => options.notifications.queue,
    deadLetters: () => options.notifications.deadLetters,
    realtimeKeys: () => new FileKeyStore(options.realtimeKeysFile),
    chat: () =>
      webhook === undefined
        ? new ChatLogChannel(options.chatLogFile)
        : new SlackWebhookChannel(() => Promise.resolve(webhook), {
            timeoutMs: options.chatTimeoutSeconds * 1000,
          }),
  });
}
