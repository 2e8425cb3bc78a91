import { createServer, type RequestListener, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_ROUTES, EVENT_FUNCTIONS } from '#shared/api/routes.ts';
import {
  ensureBucket,
  ensureTable,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  type RunningEmulator,
  type RunningS3rver,
  startBoth,
  startDynamoDbLocal,
  startS3rver,
} from './emulators.ts';
import { createGateway, type RequestLogLine, type SentResponse } from './gateway.ts';
import { createHandlerLoader } from './handler-loader.ts';
import { loadIdentityProvider, type LocalIdentityProvider } from './identity-provider.ts';
import { createJwtAuthorizer } from './jwt-authorizer.ts';
import { InProcessQueue } from './in-process-queue.ts';
import { localLambdaContext } from './lambda-context.ts';
import { forwardObjectCreated } from './s3-event-notifications.ts';
import { DELIVERY_ATTEMPTS, REDRIVE_SLACK } from '#shared/notifications/delivery-rules.ts';
import { localQueues } from '#shared/queue/queue-from-env.ts';
import type { SQSBatchResponse } from 'aws-lambda';

export const REPOSITORY_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
export const DEFAULT_DATA_DIR = join(REPOSITORY_ROOT, '.data');
export const LOCAL_TABLE = 'file-service';
export const LOCAL_BUCKET = 'file-service';

/** Where the local stage's chat messages go when no CHAT_WEBHOOK_URL is set. */
export const chatLogFile = (dataDir: string): string => join(dataDir, 'chat.jsonl');

/** The local stage's realtime signing keys (made on first use; the CLI rotates them). */
export const realtimeKeysFile = (dataDir: string): string =>
  join(dataDir, 'realtime', 'signing-keys.json');

export interface LocalStageOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly host?: string;
  /**
   * Use emulators that already run (the test setup's) instead of starting them. Without an
   * s3Endpoint the stage runs its own s3rver: only then do S3 events reach the finalizer.
   */
  readonly emulators?: { readonly dynamodbEndpoint: string; readonly s3Endpoint?: string };
  readonly tableName?: string;
  readonly bucket?: string;
  readonly onRequest?: (line: RequestLogLine) => void;
  readonly onResponse?: (response: SentResponse) => void;
  /** Runs once the port is bound, before any emulator starts; throwing stops the start. */
  readonly onListening?: () => Promise<void>;
  readonly notifications?: NotificationOptions;
  /**
   * The endpoints the handlers reach DynamoDB and S3 through, given the real ones: the
   * hardening suite puts a fault-injecting proxy in between. The real ones by default.
   */
  readonly handlerEndpoints?: (real: {
    readonly dynamodb: string;
    readonly s3: string;
  }) => Promise<{ readonly dynamodb: string; readonly s3: string }>;
}

/** How the local stage delivers submission notifications. */
export interface NotificationOptions {
  /** A Slack-compatible webhook; without one (nor CHAT_WEBHOOK_URL), messages go to chat.jsonl. */
  readonly chatWebhookUrl?: string;
  /** The first retry's wait (CHAT_RETRY_BASE_SECONDS); 1 s locally unless set. */
  readonly retryBaseSeconds?: number;
  /** How long a post waits for an answer (CHAT_TIMEOUT_SECONDS); 10 s unless set. */
  readonly timeoutSeconds?: number;
}

/** The notification queue and its dead-letter queue. */
export interface LocalNotifications {
  readonly queue: InProcessQueue;
  readonly deadLetters: InProcessQueue;
}

export interface LocalStage {
  readonly url: string;
  readonly port: number;
  readonly tableName: string;
  readonly bucket: string;
  readonly dynamodbEndpoint: string;
  readonly s3Endpoint: string;
  /** The DynamoDB Local process, when this stage started it. */
  readonly dynamodbPid?: number;
  readonly identityProvider: LocalIdentityProvider;
  readonly notifications: LocalNotifications;
  close(): Promise<void>;
}

/** Binds the port before anything else starts, so a taken port fails fast and clearly. */
async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : port;
}

/**
 * The whole local stage: DynamoDB Local and s3rver (or the given ones), the table and bucket,
 * the local identity provider, and API Gateway's stand-in serving every route's handler.
 * Handlers read their settings from the environment at import, as on Lambda, so this sets it.
 */
export async function startLocalStage(options: LocalStageOptions): Promise<LocalStage> {
  const tableName = options.tableName ?? LOCAL_TABLE;
  const bucket = options.bucket ?? LOCAL_BUCKET;
  const host = options.host ?? '127.0.0.1';
  let serve: RequestListener = (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    response.end('{"message":"Service Unavailable"}');
  };
  const server = createServer((request, response) => {
    serve(request, response);
  });
  server.keepAliveTimeout = 5000;
  const port = await listen(server, options.port, host);
  const started: RunningEmulator[] = [];
  let stopQueues = (): Promise<void> => Promise.resolve();
  const stopEmulators = async () => {
    await Promise.allSettled(started.reverse().map((e) => e.stop()));
  };
  try {
    await options.onListening?.();
    let dynamodbEndpoint: string;
    let dynamodbPid: number | undefined;
    let s3rver: RunningS3rver | undefined;
    const ownS3rver = () => startS3rver({ directory: join(options.dataDir, 's3') });
    if (options.emulators === undefined) {
      const [dynamodb, s3] = await startBoth(
        startDynamoDbLocal({ directory: join(options.dataDir, 'dynamodb') }),
        ownS3rver(),
        started,
      );
      dynamodbEndpoint = dynamodb.endpoint;
      dynamodbPid = dynamodb.pid;
      s3rver = s3;
    } else {
      dynamodbEndpoint = options.emulators.dynamodbEndpoint;
      if (options.emulators.s3Endpoint === undefined) {
        s3rver = await ownS3rver();
        started.push(s3rver);
      }
    }
    const s3Endpoint = s3rver?.endpoint ?? options.emulators?.s3Endpoint ?? '';
    const [identityProvider] = await Promise.all([
      loadIdentityProvider(options.dataDir),
      ensureTable(dynamodbEndpoint, tableName),
      ensureBucket(s3Endpoint, bucket),
    ]);

    const url = `http://${host === '127.0.0.1' ? 'localhost' : host}:${port}`;
    const notifications = startNotificationQueues(port, options.notifications ?? {});
    stopQueues = notifications.stop;
    const real = { dynamodb: dynamodbEndpoint, s3: s3Endpoint };
    const reached = (await options.handlerEndpoints?.(real)) ?? real;
    Object.assign(process.env, {
      STAGE: 'local',
      TABLE_NAME: tableName,
      BUCKET_NAME: bucket,
      DYNAMODB_ENDPOINT: reached.dynamodb,
      S3_ENDPOINT: reached.s3,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      USER_ID_CLAIM: process.env.USER_ID_CLAIM ?? 'sub',
      REALTIME_ISSUER: url,
      REALTIME_KEYS_FILE: realtimeKeysFile(options.dataDir),
      ...notifications.environment,
      CHAT_LOG_FILE: chatLogFile(options.dataDir),
    });
    serve = createGateway({
      routes: API_ROUTES,
      root: REPOSITORY_ROOT,
      authorize: createJwtAuthorizer({
        issuer: identityProvider.issuer,
        audiences: [identityProvider.audience],
        publicKey: identityProvider.publicKey,
      }),
      ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest }),
      ...(options.onResponse === undefined ? {} : { onResponse: options.onResponse }),
    });
    const finalizer =
      s3rver === undefined
        ? undefined
        : forwardObjectCreated(s3rver.notifications, {
            ...EVENT_FUNCTIONS.finalizeDirectUpload,
            root: REPOSITORY_ROOT,
          });
    return {
      url,
      port,
      tableName,
      bucket,
      dynamodbEndpoint,
      s3Endpoint,
      ...(dynamodbPid === undefined ? {} : { dynamodbPid }),
      identityProvider,
      notifications: {
        queue: notifications.queue,
        deadLetters: notifications.deadLetters,
      },
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((done) => {
          server.close(() => {
            done();
          });
        });
        await finalizer?.drain();
        await stopQueues();
        await stopEmulators();
      },
    };
  } catch (error) {
    server.close();
    await stopQueues();
    await stopEmulators();
    throw error;
  }
}

/**
 * SQS and its event source mapping, in process: the notification queue, whose messages go to
 * the same worker module Lambda runs, and its dead-letter queue, with the stack's redrive
 * policy. The worker finds both through NOTIFY_QUEUE_URL and NOTIFY_DLQ_URL (`local:<name>`).
 */
function startNotificationQueues(port: number, options: NotificationOptions) {
  const deadLetters = new InProcessQueue({
    name: `notifications-dlq-${port}`,
    visibilityTimeoutMs: 30_000,
    onArrival: (message) => {
      console.warn(`[notifications] set aside in the dead-letter queue: ${message.body}`);
    },
  });
  const queue = new InProcessQueue({
    name: `notifications-${port}`,
    visibilityTimeoutMs: 30_000,
    redrive: { maxReceiveCount: DELIVERY_ATTEMPTS + REDRIVE_SLACK, deadLetters },
  });
  const registry = localQueues();
  registry.set(queue.name, queue);
  registry.set(deadLetters.name, deadLetters);
  const load = createHandlerLoader(REPOSITORY_ROOT);
  const { functionId, entry } = EVENT_FUNCTIONS.deliverNotification;
  queue.consume(async (event) => {
    const handler = await load(entry);
    return (await handler(event, localLambdaContext(functionId, 30_000))) as
      SQSBatchResponse | undefined;
  });
  const chatWebhookUrl = options.chatWebhookUrl ?? process.env.CHAT_WEBHOOK_URL;
  return {
    queue,
    deadLetters,
    environment: {
      NOTIFY_QUEUE_URL: `local:${queue.name}`,
      NOTIFY_DLQ_URL: `local:${deadLetters.name}`,
      CHAT_RETRY_BASE_SECONDS: String(
        options.retryBaseSeconds ?? process.env.CHAT_RETRY_BASE_SECONDS ?? 1,
      ),
      CHAT_TIMEOUT_SECONDS: String(
        options.timeoutSeconds ?? process.env.CHAT_TIMEOUT_SECONDS ?? 10,
      ),
      ...(chatWebhookUrl === undefined ? {} : { CHAT_WEBHOOK_URL: chatWebhookUrl }),
    },
    stop: async () => {
      await Promise.all([queue.stop(), deadLetters.stop()]);
      registry.delete(queue.name);
      registry.delete(deadLetters.name);
    },
  };
}
