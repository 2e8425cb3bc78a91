import { createServer, type RequestListener, type Server } from 'node:http';
import { join } from 'node:path';
import { deliverNotificationFunction } from '#functions/deliver-notification/function.ts';
import { finalizeDirectUploadFunction } from '#functions/finalize-direct-upload/function.ts';
import { recordScanVerdictFunction } from '#functions/record-scan-verdict/function.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import { DIRECT_UPLOAD_OBJECT_PREFIX } from '#shared/storage/keys.ts';
import {
  ensureBucket,
  LOCAL_REGION,
  type RunningEmulator,
  type RunningObjectStore,
  startBoth,
  startObjectStore,
} from './emulators.ts';
import { ensureTable, startDynamoDbLocal } from '../dynamodb/dynamodb-local.ts';
import { createGateway, type RequestLogLine, type SentResponse } from '../gateway/gateway.ts';
import { createHandlerLoader, type LocalWiring } from '../lambda/handler-loader.ts';
import { localAdapters, localClients } from '../adapters/local-adapters.ts';
import { loadIdentityProvider, type LocalIdentityProvider } from '../gateway/identity-provider.ts';
import { createJwtAuthorizer } from '../gateway/jwt-authorizer.ts';
import { InProcessQueue } from '../queue/in-process-queue.ts';
import { invokeAsLambda } from '../lambda/lambda-context.ts';
import { stackFunction } from '../lambda/stack-functions.ts';
import { createLambdaInvokeApi } from '../lambda/lambda-invoke-api.ts';
import type { Credentials } from '../sigv4-check.ts';
import { stageCredentials } from '../stage-credentials.ts';
import { forwardObjectCreated } from '../object-store/s3-event-notifications.ts';
import { asyncInvoker } from '../lambda/lambda-async-invoke.ts';
import {
  type LocalScannerOptions,
  scanObjectsCreated,
} from '../object-store/local-malware-scanner.ts';
import { LOCAL_BUCKET } from '../object-store/local-bucket.ts';
import { endpointOf } from '../object-store-server.ts';
import { isWildcard, publicHostOf } from './public-host.ts';
import {
  DELIVERY_ATTEMPTS,
  REDRIVE_SLACK,
  WORKER_BATCH_SIZE,
} from '#shared/notifications/delivery-rules.ts';
import { LOCAL_OVERRIDES, LOCAL_SCAN_DELAY_MS, localOverrides } from './local-stage-variables.ts';
import type { SQSBatchResponse } from 'aws-lambda';

import { REPOSITORY_ROOT } from './paths.ts';
import { dynamoDbFrontFor } from '../dynamodb/dynamodb-network-front.ts';
import { ALLOWED_ORIGINS_SETTING, STAGE_DEFAULTS } from '../../stages.ts';
import { apiCorsRule, bucketCorsRules, type CorsRule } from '../../stacks/cors-rules.ts';
import { variableDefaults } from '#shared/config/environment.ts';
import type { ServiceSettings } from '#shared/wiring/service-adapters.ts';

export const LOCAL_TABLE = 'file-service';
export { LOCAL_BUCKET } from '../object-store/local-bucket.ts';

/** Where the local stage's chat messages go when no CHAT_WEBHOOK_URL is set. */
export const chatLogFile = (dataDir: string): string => join(dataDir, 'chat.jsonl');

/** The local stage's realtime signing keys (made on first use; the CLI rotates them). */
export const realtimeKeysFile = (dataDir: string): string =>
  join(dataDir, 'realtime', 'signing-keys.json');

export interface LocalStageOptions {
  readonly dataDir: string;
  readonly port: number;
  /** The address the stage listens on (HOST): the gateway and its object store. */
  readonly host?: string;
  /**
   * The host name or address other machines reach this one by, for the upload forms and
   * download links the stage signs; by default the one `publicHostOf(host)` finds (none on
   * loopback, where links stay on 127.0.0.1).
   */
  readonly publicHost?: string;
  /**
   * Use emulators that already run (the test setup's) instead of starting them. Without an
   * s3Endpoint the stage runs its own object store: only then do S3 events reach the finalizer.
   * With one, the credentials it takes (the stage's own are made in its data folder).
   */
  readonly emulators?: {
    readonly dynamodbEndpoint: string;
    readonly s3Endpoint?: string;
    readonly s3Credentials?: Credentials;
  };
  readonly tableName?: string;
  readonly bucket?: string;
  readonly onRequest?: (line: RequestLogLine) => void;
  readonly onResponse?: (response: SentResponse) => void;
  /**
   * Origins whose pages may call the stage (CORS, on the gateway and the bucket); by default
   * ALLOWED_ORIGINS, else the local stage's setting (infra/stages.ts).
   */
  readonly allowedOrigins?: readonly string[];
  /** Runs once the port is bound, before any emulator starts; throwing stops the start. */
  readonly onListening?: () => Promise<void>;
  readonly notifications?: NotificationOptions;
  /**
   * Whether stored files are scanned for malware: the functions' MALWARE_SCANNING, the local
   * scanner (local-malware-scanner.ts) and the bucket policy's hold on downloads
   * (s3-scan-hold.ts). By default MALWARE_SCANNING, `on` unless `off`; never with an object
   * store of the caller's (`emulators.s3Endpoint`), whose events the stage does not hear.
   */
  readonly malwareScanning?: boolean;
  /**
   * Settings the handlers take, by their variable's name (`{ MAX_FILES_PER_USER: 7 }`), over
   * what the stage reads from its environment (LOCAL_OVERRIDES) and the schema's defaults.
   */
  readonly settings?: LocalSettings;
  /**
   * The scanner's wait before each verdict (by default LOCAL_SCAN_DELAY_MS, else 0), and the
   * results a test forces for some keys.
   */
  readonly scanner?: LocalScannerOptions;
  /**
   * The endpoints the handlers reach DynamoDB and S3 through, given the real ones: the
   * hardening suite puts a fault-injecting proxy in between. The real ones by default.
   */
  readonly handlerEndpoints?: (real: {
    readonly dynamodb: string;
    readonly s3: string;
  }) => Promise<{ readonly dynamodb: string; readonly s3: string }>;
}

/** Settings a test gives the stage's handlers; the stage itself says its name, URL and scanning. */
type LocalSettings = Partial<
  Omit<ServiceSettings, 'STAGE' | 'REALTIME_ISSUER' | 'MALWARE_SCANNING'>
>;

/** How the local stage delivers submission notifications. */
interface NotificationOptions {
  /** A Slack-compatible webhook; without one (nor CHAT_WEBHOOK_URL), messages go to chat.jsonl. */
  readonly chatWebhookUrl?: string;
  /** The first retry's wait (CHAT_RETRY_BASE_SECONDS); 1 s locally unless set. */
  readonly retryBaseSeconds?: number;
  /** How long a post waits for an answer (CHAT_TIMEOUT_SECONDS); 10 s unless set. */
  readonly timeoutSeconds?: number;
  /** The channel's pace (CHAT_POSTS_PER_SECOND); 1 unless set. */
  readonly postsPerSecond?: number;
  /** Each sender's notify allowance (NOTIFY_BURST, NOTIFY_RATE_PER_MINUTE); 5, then 1 a minute. */
  readonly notifyBurst?: number;
  readonly notifyRatePerMinute?: number;
}

/** The notification queue and its dead-letter queue. */
interface LocalNotifications {
  readonly queue: InProcessQueue;
  readonly deadLetters: InProcessQueue;
}

export interface LocalStage {
  readonly url: string;
  readonly port: number;
  /** Lambda's Invoke API for the stage's functions (`npm run invoke`). */
  readonly lambdaEndpoint: string;
  readonly tableName: string;
  readonly bucket: string;
  readonly dynamodbEndpoint: string;
  /**
   * DynamoDB Local's signature-checking front on the stage's host, when that is not loopback
   * (a SAM CLI container reaches DynamoDB there); DynamoDB Local itself stays on loopback.
   */
  readonly dynamodbNetworkEndpoint?: string;
  /** What the object store takes a signature by (the Invoke API: stage-credentials.ts). */
  readonly s3Credentials: Credentials;
  /** Where this machine reaches the object store (the handlers and CLIs do). */
  readonly s3Endpoint: string;
  /** Where other machines reach it, in the links and forms the stage signs, when not there. */
  readonly s3PublicEndpoint?: string;
  /** The DynamoDB Local process, when this stage started it. */
  readonly dynamodbPid?: number;
  readonly identityProvider: LocalIdentityProvider;
  readonly notifications: LocalNotifications;
  /** Whether its functions and object store hold files until their malware scan says clean. */
  readonly malwareScanning: boolean;
  /** The adapters, settings and SDK clients every handler of the stage runs on. */
  readonly wiring: LocalWiring;
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
 * The whole local stage: DynamoDB Local and the object store (or the given ones), the table and bucket,
 * the local identity provider, and API Gateway's stand-in serving every route's handler.
 * Each handler module is imported on first use and built by its `createHandler` on this
 * stage's own adapters and settings (localWiring, below), so no function reads its variables
 * here and this sets none; what a developer may change comes from the stage's own
 * environment (LOCAL_OVERRIDES).
 */
export async function startLocalStage(options: LocalStageOptions): Promise<LocalStage> {
  const tableName = options.tableName ?? LOCAL_TABLE;
  const bucket = options.bucket ?? LOCAL_BUCKET;
  const host = options.host ?? '127.0.0.1';
  const ownObjectStore = options.emulators?.s3Endpoint === undefined;
  if (!ownObjectStore && options.malwareScanning === true) {
    throw new Error('Malware scanning needs the stage to run its own object store');
  }
  const malwareScanning = ownObjectStore && (options.malwareScanning ?? localMalwareScanning());
  const scanDelayMs = options.scanner?.delayMs ?? localScanDelayMs();
  let serve: RequestListener = (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    response.end('{"message":"Service Unavailable"}');
  };
  const server = createServer((request, response) => {
    serve(request, response);
  });
  // Node's 5 s closes a kept-alive connection while a client that has not yet read a large
  // answer (a busy client: the docs bundle, a download) still holds it unread, and the client
  // loses the answer ("other side closed"). Stopping closes every connection anyway.
  server.keepAliveTimeout = 60_000;
  const port = await listen(server, options.port, host);
  const started: RunningEmulator[] = [];
  let stopQueues = (): Promise<void> => Promise.resolve();
  let closeLambdaApi = (): Promise<void> => Promise.resolve();
  const stopEmulators = async () => {
    await Promise.allSettled(started.reverse().map((e) => e.stop()));
  };
  try {
    await options.onListening?.();
    const given = options.emulators;
    if (given?.s3Endpoint !== undefined && given.s3Credentials === undefined) {
      throw new Error('The object store at emulators.s3Endpoint needs its s3Credentials');
    }
    // The stage's own, in its data folder, where the CLIs find them; the Invoke API and its
    // own object store take them. An object store of the caller's takes its own.
    const ownCredentials = await stageCredentials(options.dataDir);
    const allowedOrigins = options.allowedOrigins ?? localAllowedOrigins();
    const credentials = given?.s3Credentials ?? ownCredentials;
    const { dynamodbEndpoint, dynamodbPid, objectStore } = await startEmulators(options, started, {
      bucket,
      host,
      credentials,
      malwareScanning,
      corsRules: bucketCorsRules(allowedOrigins),
    });
    const s3Endpoint = objectStore?.endpoint ?? options.emulators?.s3Endpoint ?? '';
    const [identityProvider] = await Promise.all([
      loadIdentityProvider(options.dataDir),
      ensureTable(dynamodbEndpoint, tableName),
      ensureBucket(s3Endpoint, bucket, credentials),
    ]);

    const dynamodbFront = await dynamoDbFrontFor(host, {
      target: dynamodbEndpoint,
      credentials,
      region: LOCAL_REGION,
    });
    if (dynamodbFront !== undefined) started.push(dynamodbFront);
    const publicHost = options.publicHost ?? publicHostOf(host);
    const urlHost =
      host === '127.0.0.1' ? 'localhost' : isWildcard(host) ? (publicHost ?? 'localhost') : host;
    const url = endpointOf(urlHost, port);
    // Links and forms for other machines name the public host; the handlers stay on loopback.
    const s3PublicEndpoint =
      objectStore === undefined || publicHost === undefined
        ? undefined
        : endpointOf(publicHost, Number(new URL(objectStore.endpoint).port));
    const notifications = startNotificationQueues(port);
    stopQueues = notifications.stop;
    const real = { dynamodb: dynamodbEndpoint, s3: s3Endpoint };
    const reached = (await options.handlerEndpoints?.(real)) ?? real;
    const wiring = localWiring({
      url,
      tableName,
      bucket,
      endpoints:
        s3PublicEndpoint === undefined ? reached : { ...reached, s3Links: s3PublicEndpoint },
      credentials,
      queues: notifications,
      dataDir: options.dataDir,
      notifications: options.notifications ?? {},
      malwareScanning,
      settings: options.settings ?? {},
    });
    notifications.consume(wiring);
    // GuardDuty's plan on the scanned prefixes, its tags, and its EventBridge rule's target;
    // before the gateway serves, so that every object it stores is scanned.
    const scanning = startScanning(malwareScanning ? objectStore : undefined, wiring, {
      ...options.scanner,
      delayMs: scanDelayMs,
    });
    serve = createGateway({
      routes: API_ROUTES,
      root: REPOSITORY_ROOT,
      wiring,
      authorize: createJwtAuthorizer({
        issuer: identityProvider.issuer,
        audiences: [identityProvider.audience],
        publicKey: identityProvider.publicKey,
      }),
      ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest }),
      ...(options.onResponse === undefined ? {} : { onResponse: options.onResponse }),
      ...corsOf(allowedOrigins),
    });
    const lambdaApi = await serveLambdaInvokeApi(wiring, ownCredentials);
    closeLambdaApi = lambdaApi.close;
    const finalizer =
      objectStore === undefined
        ? undefined
        : forwardObjectCreated(objectStore.store, {
            functionId: finalizeDirectUploadFunction.id,
            entry: finalizeDirectUploadFunction.entry,
            // The bucket's notification filter on AWS (UploadFinalizer).
            objectPrefix: DIRECT_UPLOAD_OBJECT_PREFIX,
            root: REPOSITORY_ROOT,
            wiring,
          });
    return {
      url,
      port,
      lambdaEndpoint: lambdaApi.endpoint,
      tableName,
      bucket,
      dynamodbEndpoint,
      ...(dynamodbFront === undefined ? {} : { dynamodbNetworkEndpoint: dynamodbFront.endpoint }),
      s3Credentials: credentials,
      s3Endpoint,
      ...(s3PublicEndpoint === undefined ? {} : { s3PublicEndpoint }),
      ...(dynamodbPid === undefined ? {} : { dynamodbPid }),
      identityProvider,
      wiring,
      malwareScanning,
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
        await closeLambdaApi();
        // The finalizer's copies are scanned, and each scan's verdict delivered, in this order.
        await finalizer?.drain();
        await scanning.drain();
        await stopQueues();
        await stopEmulators();
      },
    };
  } catch (error) {
    server.close();
    await closeLambdaApi();
    await stopQueues();
    await stopEmulators();
    throw error;
  }
}

/**
 * DynamoDB Local and the object store, the stage's own in its data folder unless the caller
 * gives theirs; each one started is recorded in `started`, so a failure can stop it.
 */
async function startEmulators(
  options: LocalStageOptions,
  started: RunningEmulator[],
  store: {
    readonly bucket: string;
    readonly host: string;
    readonly credentials: Credentials;
    readonly malwareScanning: boolean;
    readonly corsRules: readonly CorsRule[];
  },
): Promise<{ dynamodbEndpoint: string; dynamodbPid?: number; objectStore?: RunningObjectStore }> {
  const ownObjectStore = async () => {
    const directory = join(options.dataDir, 's3');
    // Authenticated, so it may listen where the stage does: another machine uploads to it.
    const { host, credentials, malwareScanning, corsRules } = store;
    return startObjectStore({ directory, host, credentials, malwareScanning, corsRules });
  };
  if (options.emulators === undefined) {
    const [dynamodb, objectStore] = await startBoth(
      startDynamoDbLocal({ directory: join(options.dataDir, 'dynamodb') }),
      ownObjectStore(),
      started,
    );
    return {
      dynamodbEndpoint: dynamodb.endpoint,
      ...(dynamodb.pid === undefined ? {} : { dynamodbPid: dynamodb.pid }),
      objectStore,
    };
  }
  if (options.emulators.s3Endpoint !== undefined) {
    return { dynamodbEndpoint: options.emulators.dynamodbEndpoint };
  }
  const objectStore = await ownObjectStore();
  started.push(objectStore);
  return { dynamodbEndpoint: options.emulators.dynamodbEndpoint, objectStore };
}

/**
 * SQS and its event source mapping, in process: the notification queue and its dead-letter
 * queue, with the stack's redrive policy. Once the stage's wiring exists, `consume` hands
 * the queue's messages to the same worker module Lambda runs.
 */
function startNotificationQueues(port: number) {
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
    batchSize: WORKER_BATCH_SIZE,
  });
  return {
    queue,
    deadLetters,
    consume: (wiring: LocalWiring) => {
      const load = createHandlerLoader(REPOSITORY_ROOT, wiring);
      const { id: functionId, entry } = deliverNotificationFunction;
      // The stack's timeout (WORKER_TIMEOUT_SECONDS) and memory: stopped there, as on Lambda.
      const sizing = stackFunction(functionId);
      queue.consume(async (event) => {
        const handler = await load(entry);
        return (await invokeAsLambda(functionId, sizing, (context) => handler(event, context))) as
          SQSBatchResponse | undefined;
      });
    },
    stop: async () => {
      await Promise.all([queue.stop(), deadLetters.stop()]);
    },
  };
}

/**
 * The local stage's allowed origins: ALLOWED_ORIGINS (comma-separated; empty for none) by the
 * setting's own rule, else the local stage's default.
 */
function localAllowedOrigins(): readonly string[] {
  const given = process.env.ALLOWED_ORIGINS;
  if (given === undefined) return STAGE_DEFAULTS.local.allowedOrigins;
  const parsed = ALLOWED_ORIGINS_SETTING.safeParse(given);
  if (!parsed.success) {
    throw new Error(`ALLOWED_ORIGINS: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  return parsed.data;
}

const blankAsUnset = (value: string | undefined) => (value?.trim() === '' ? undefined : value);

/** MALWARE_SCANNING by the functions' own rule: scanning unless it says `off`. */
function localMalwareScanning(): boolean {
  const parsed = LOCAL_OVERRIDES.shape.MALWARE_SCANNING.safeParse(
    blankAsUnset(process.env.MALWARE_SCANNING),
  );
  if (!parsed.success) throw new Error('MALWARE_SCANNING must be `on` or `off`');
  return parsed.data === 'on';
}

/** LOCAL_SCAN_DELAY_MS: how long the local scanner waits before each verdict. */
function localScanDelayMs(): number {
  const parsed = LOCAL_SCAN_DELAY_MS.safeParse(blankAsUnset(process.env.LOCAL_SCAN_DELAY_MS));
  if (!parsed.success) {
    throw new Error('LOCAL_SCAN_DELAY_MS must be whole milliseconds, 0 to 600,000');
  }
  return parsed.data;
}

/** The gateway's CORS configuration, as the API stack gives the HTTP API; none for no origins. */
const corsOf = (allowedOrigins: readonly string[]) => {
  const cors = apiCorsRule(allowedOrigins);
  return cors === undefined ? {} : { cors };
};

/**
 * The adapters and settings every handler of this stage is built on: the deployed DynamoDB
 * and S3 adapters on the emulators, and local stand-ins for SQS, Secrets Manager and the
 * chat channel. Settings a developer may change come from the stage's own environment
 * (LOCAL_OVERRIDES: the variables the schema marks `local`), or from the options the tests
 * pass; the rest are the schema's defaults.
 */
function localWiring(stage: {
  readonly url: string;
  readonly tableName: string;
  readonly bucket: string;
  readonly endpoints: { readonly dynamodb: string; readonly s3: string; readonly s3Links?: string };
  readonly credentials: Credentials;
  readonly queues: { readonly queue: InProcessQueue; readonly deadLetters: InProcessQueue };
  readonly dataDir: string;
  readonly notifications: NotificationOptions;
  readonly malwareScanning: boolean;
  readonly settings: LocalSettings;
}): LocalWiring {
  const { CHAT_WEBHOOK_URL, ...read } = localOverrides(process.env);
  const env = { ...variableDefaults(), ...read, ...stage.settings };
  const settings: ServiceSettings = {
    ...env,
    STAGE: 'local',
    REALTIME_ISSUER: stage.url,
    CHAT_RETRY_BASE_SECONDS: stage.notifications.retryBaseSeconds ?? env.CHAT_RETRY_BASE_SECONDS,
    CHAT_TIMEOUT_SECONDS: stage.notifications.timeoutSeconds ?? env.CHAT_TIMEOUT_SECONDS,
    CHAT_POSTS_PER_SECOND: stage.notifications.postsPerSecond ?? env.CHAT_POSTS_PER_SECOND,
    NOTIFY_BURST: stage.notifications.notifyBurst ?? env.NOTIFY_BURST,
    NOTIFY_RATE_PER_MINUTE: stage.notifications.notifyRatePerMinute ?? env.NOTIFY_RATE_PER_MINUTE,
    MALWARE_SCANNING: stage.malwareScanning ? 'on' : 'off',
  };
  const chatWebhookUrl = stage.notifications.chatWebhookUrl ?? CHAT_WEBHOOK_URL;
  const clients = localClients(stage.endpoints, stage.credentials);
  const adapters = localAdapters({
    clients,
    tableName: stage.tableName,
    bucket: stage.bucket,
    notificationQueue: stage.queues.queue,
    deadLetters: stage.queues.deadLetters,
    realtimeKeysFile: realtimeKeysFile(stage.dataDir),
    chatLogFile: chatLogFile(stage.dataDir),
    chatTimeoutSeconds: settings.CHAT_TIMEOUT_SECONDS,
    ...(chatWebhookUrl === undefined ? {} : { chatWebhookUrl }),
  });
  return { adapters, settings, clients };
}

/**
 * Lambda's Invoke API for `npm run invoke` and SAM, on loopback whatever HOST says, as
 * `sam local start-lambda` binds: it runs any function.
 */
async function serveLambdaInvokeApi(wiring: LocalWiring, credentials: Credentials) {
  const server = createServer(
    createLambdaInvokeApi({ root: REPOSITORY_ROOT, wiring, credentials }),
  );
  const port = await listen(server, 0, '127.0.0.1');
  return {
    endpoint: `http://localhost:${String(port)}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => {
        server.close(() => {
          done();
        });
      });
    },
  };
}

/**
 * The local malware scanner on the store's new objects (none without a store), and its
 * verdicts delivered to the verdict function as EventBridge invokes it; `drain()` finishes
 * the scans under way, then their deliveries.
 */
function startScanning(
  objectStore: RunningObjectStore | undefined,
  wiring: LocalWiring,
  scanner: LocalScannerOptions,
): { drain(): Promise<void> } {
  const verdicts = asyncInvoker({
    functionId: recordScanVerdictFunction.id,
    entry: recordScanVerdictFunction.entry,
    root: REPOSITORY_ROOT,
    wiring,
    // A local scan takes no time, so its verdict often comes before the file's record (a
    // scan takes seconds on AWS); the handler throws until the record is there.
    retryDelaysMs: [1000, 5000],
  });
  const scans =
    objectStore === undefined
      ? undefined
      : scanObjectsCreated({
          ...scanner,
          store: objectStore.store,
          deliver: (event) => {
            verdicts.invoke(event);
          },
        });
  return {
    drain: async () => {
      await scans?.drain();
      await verdicts.drain();
    },
  };
}
