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
import { LOCAL_REGION, s3ClientOptions } from '../stage/emulators.ts';
import type { Credentials } from '../sigv4-check.ts';
import { FileKeyStore } from './file-key-store.ts';
import { PublicLinkBlobStore } from './public-link-blob-store.ts';

/** SDK clients on the emulators; the handlers' own, so tests can watch what they send. */
export interface LocalClients {
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  /**
   * The client upload forms and download links are signed with when other machines reach
   * the object store by another endpoint than the handlers do (the stage's public host).
   */
  readonly s3Links?: S3Client;
}

/** Clients on DynamoDB Local and the local object store, at the endpoints the handlers reach them by. */
export function localClients(
  endpoints: {
    readonly dynamodb: string;
    readonly s3: string;
    /** Where browsers reach the object store, when not at `s3`. */
    readonly s3Links?: string;
  },
  /** The stage's own (stage-credentials.ts); DynamoDB Local takes them as any others. */
  credentials: Credentials,
): LocalClients {
  const local = { region: LOCAL_REGION, credentials };
  const s3 = (endpoint: string) =>
    new S3Client({ ...local, ...s3ClientOptions(endpoint), logger: sdkLogger });
  return {
    dynamodb: new DynamoDBClient({ ...local, endpoint: endpoints.dynamodb }),
    s3: s3(endpoints.s3),
    ...(endpoints.s3Links === undefined ? {} : { s3Links: s3(endpoints.s3Links) }),
  };
}

export interface LocalAdapterOptions {
  readonly clients: LocalClients;
  readonly tableName: string;
  readonly bucket: string;
  /** The in-process notification queue and its dead-letter queue. */
  readonly notificationQueue: MessageQueue;
  readonly deadLetters: MessageQueue;
  /** The realtime signing keys' file (made on first use). */
  readonly realtimeKeysFile: string;
  /** A Slack-compatible webhook; without one, messages go to `chatLogFile`. */
  readonly chatWebhookUrl?: string;
  readonly chatLogFile: string;
  readonly chatTimeoutSeconds: number;
}

/**
 * The local stage's adapters, from the one composition root: the very DynamoDB and S3
 * adapters a deployed function runs on, pointed at the emulators, with local stand-ins for
 * what has no emulator here: SQS (an in-process queue), Secrets Manager (a key file) and the
 * chat channel (a log file, unless a webhook is given); and, when browsers reach the object
 * store elsewhere, a blob store that signs its links for there. Every handler the stage runs
 * takes its adapters from this one set, each built when a handler first takes it.
 */
export function localAdapters(options: LocalAdapterOptions): ServiceAdapters {
  const { dynamodb, s3, s3Links } = options.clients;
  const documents = DynamoDBDocumentClient.from(dynamodb, DOCUMENT_TRANSLATION);
  const webhook = options.chatWebhookUrl;
  const sources = {
    TABLE_NAME: options.tableName,
    BUCKET_NAME: options.bucket,
    dynamodb: () => dynamodb,
    documents: () => documents,
    s3: () => s3,
  };
  return composeAdapters(sources, {
    ...SERVICE_ADAPTER_BUILDERS,
    blobs: (on) =>
      s3Links === undefined
        ? SERVICE_ADAPTER_BUILDERS.blobs(on)
        : new PublicLinkBlobStore(s3, s3Links, options.bucket),
    notificationQueue: () => options.notificationQueue,
    deadLetters: () => options.deadLetters,
    realtimeKeys: () => new FileKeyStore(options.realtimeKeysFile),
    chat: () =>
      webhook === undefined
        ? new ChatLogChannel(options.chatLogFile)
        : new SlackWebhookChannel(() => Promise.resolve(webhook), {
            timeoutMs: options.chatTimeoutSeconds * 1000,
          }),
  });
}
