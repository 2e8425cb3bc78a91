import { createServer, type RequestListener } from 'node:http';
import { join } from 'node:path';
import { deliverNotificationFunction } from '#functions/deliver-notification/function.ts';
import { finalizeDirectUploadFunction } from '#functions/finalize-direct-upload/function.ts';
import { recordScanVerdictFunction } from '#functions/record-scan-verdict/function.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import { DIRECT_UPLOAD_OBJECT_PREFIX, fileObjectKey } from '#shared/storage/keys.ts';
import {
  ensureBucket,
  type RunningStandIn,
  type RunningObjectStore,
  startBoth,
  startObjectStore,
} from './stand-ins.ts';
import { closeServer, listen } from './listening.ts';
import { ensureTable, startDynamoDbLocal } from '../dynamodb/dynamodb-local.ts';
import { createGateway, type RequestLogLine, type SentResponse } from '../gateway/gateway.ts';
import type { LocalWiring } from '../lambda/handler-loader.ts';
import { localAdapters, localClients } from '../adapters/local-adapters.ts';
import { loadIdentityProvider, type LocalIdentityProvider } from '../gateway/identity-provider.ts';
import { createJwtAuthorizer } from '../gateway/jwt-authorizer.ts';
import { InProcessQueue } from '../queue/in-process-queue.ts';
import { stackInvoker } from '../lambda/stack-functions.ts';
import { createLambdaInvokeApi } from '../lambda/lambda-invoke-api.ts';
import type { Credentials } from '../sigv4-check.ts';
import { releaserCredentials, stageCredentials } from '../stage-credentials.ts';
import { forwardObjectCreated } from '../object-store/s3-event-notifications.ts';
import { asyncInvoker } from '../lambda/lambda-async-invoke.ts';
import {
  type LocalScannerOptions,
  scanObjectsCreated,
} from '../object-store/local-malware-scanner.ts';
import { LOCAL_BUCKET } from '../object-store/bucket-store.ts';
import { endpointOf } from '../object-store/object-store-front.ts';
import { isWildcard, publicHostOf } from './public-host.ts';
import {
  DELIVERY_ATTEMPTS,
  REDRIVE_SLACK,
  WORKER_BATCH_SIZE,
} from '#shared/notifications/delivery-rules.ts';
import { type LocalOverrides, localOverrides } from './local-stage-variables.ts';
import type { SQSBatchResponse } from 'aws-lambda';
import { apiCorsRule, bucketCorsRules } from '../../stacks/cors-rules.ts';
import { variableDefaults } from '#shared/config/environment.ts';
import type { ServiceSettings } from '#shared/wiring/service-adapters.ts';
import { listHeldFiles } from '#shared/scanning/held-files.ts';

export const LOCAL_TABLE = 'file-service';
export { LOCAL_BUCKET } from '../object-store/bucket-store.ts';

export const chatLogFile = (dataDir: string): string => join(dataDir, 'chat.jsonl');

export const realtimeKeysFile = (dataDir: string): string =>
  join(dataDir, 'realtime', 'signing-keys.json');

type Endpoints = Parameters<typeof localClients>[0];

export interface LocalStageOptions {
  readonly dataDir: string;
  readonly port: number;
  /** The address the gateway and its object store bind (HOST); loopback by default. */
  readonly host?: string;
  /** The host other machines reach this one by, in signed links and forms (publicHostOf). */
  readonly publicHost?: string;
  /** DynamoDB's and S3's stand-ins, already running (the tests'); without s3Endpoint, its own. */
  readonly standIns?: {
    readonly dynamodbEndpoint: string;
    readonly s3Endpoint?: string;
    readonly s3Credentials?: Credentials;
  };
  readonly tableName?: string;
  readonly bucket?: string;
  readonly onRequest?: (line: RequestLogLine) => void;
  readonly onResponse?: (response: SentResponse) => void;
  /** Runs once the port is bound, before any stand-in starts; throwing stops the start. */
  readonly onListening?: () => Promise<void>;
  /** Whether stored files are scanned (MALWARE_SCANNING); only with the stage's own store. */
  readonly malwareScanning?: boolean;
  /** Handler settings over the environment's; the stage says its name, URL and scanning. */
  readonly settings?: Partial<
    Omit<ServiceSettings, 'STAGE' | 'REALTIME_ISSUER' | 'MALWARE_SCANNING'>
  >;
  /** Over CHAT_WEBHOOK_URL; without either, chat goes to the console and chat.jsonl. */
  readonly chatWebhookUrl?: string;
  readonly scanner?: LocalScannerOptions;
  /** Where handlers reach DynamoDB and S3 (the hardening suite's fault proxy). */
  readonly handlerEndpoints?: (real: Endpoints) => Promise<Endpoints>;
}

export interface LocalStage {
  readonly url: string;
  readonly port: number;
  readonly lambdaEndpoint: string;
  readonly tableName: string;
  readonly bucket: string;
  readonly dynamodbEndpoint: string;
  readonly s3Credentials: Credentials;
  readonly s3Endpoint: string;
  readonly s3PublicEndpoint?: string;
  readonly dynamodbPid?: number;
  readonly identityProvider: LocalIdentityProvider;
  readonly notifications: { readonly queue: InProcessQueue; readonly deadLetters: InProcessQueue };
  readonly malwareScanning: boolean;
  readonly wiring: LocalWiring;
  close(): Promise<void>;
}

/**
 * The whole local stage: stand-ins, table and bucket, identity provider, and the gateway
 * serving every route's handler on localWiring. What it starts, it stops in reverse order.
 */
export async function startLocalStage(options: LocalStageOptions): Promise<LocalStage> {
  const host = options.host ?? '127.0.0.1';
  const env = localOverrides(process.env);
  const malwareScanning =
    options.standIns?.s3Endpoint === undefined &&
    (options.malwareScanning ?? env.MALWARE_SCANNING === 'on');
  // Until the handlers are wired, every request is told to come back.
  let serve: RequestListener = (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    response.end('{"message":"Service Unavailable"}');
  };
  const server = createServer((request, response) => {
    serve(request, response);
  });
  // Node's 5 s drops a kept-alive connection a busy client has not yet read ("other side closed").
  server.keepAliveTimeout = 60_000;
  const port = await listen(server, options.port, host);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    await closeServer(server);
    for (const stop of stops.reverse()) await stop();
  };
  try {
    await options.onListening?.();
    const backends = await startBackends(options, host, env, malwareScanning, stops);
    const { objectStore, ownStore, credentials, identityProvider } = backends;
    const address = stageAddress(host, port, options.publicHost, objectStore);
    const notifications = startNotificationQueues(port);
    stops.push(() => notifications.stop());
    const { s3PublicEndpoint } = address;
    // The handlers reach the store where other machines do: the forms and links they sign name it.
    const real = {
      dynamodb: backends.dynamodbEndpoint,
      s3: s3PublicEndpoint ?? objectStore.endpoint,
    };
    const reached = (await options.handlerEndpoints?.(real)) ?? real;
    const wiring = localWiring(options, env, {
      url: address.url,
      tableName: backends.tableName,
      bucket: backends.bucket,
      endpoints: reached,
      credentials,
      notifications,
      malwareScanning,
    });
    notifications.consume(wiring);
    // Before the gateway serves, so that every object it stores is scanned.
    const scanning = startScanning(malwareScanning ? ownStore : undefined, wiring, {
      ...options.scanner,
      delayMs: options.scanner?.delayMs ?? env.LOCAL_SCAN_DELAY_MS,
      bucket: backends.bucket,
    });
    stops.push(() => scanning.drain());
    const cors = apiCorsRule(env.ALLOWED_ORIGINS);
    serve = createGateway({
      routes: API_ROUTES,
      wiring,
      authorize: createJwtAuthorizer({
        issuer: identityProvider.issuer,
        audiences: [identityProvider.audience],
        publicKey: identityProvider.publicKey,
      }),
      ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest }),
      ...(options.onResponse === undefined ? {} : { onResponse: options.onResponse }),
      ...(cors === undefined ? {} : { cors }),
    });
    // Drained after the Invoke API closes and before the scans: its copies are scanned too.
    if (ownStore !== undefined) {
      const finalizer = startFinalizer(ownStore, wiring);
      stops.push(() => finalizer.drain());
    }
    const lambdaEndpoint = await serveLambdaInvokeApi(wiring, backends.ownCredentials, stops);
    const { dynamodbPid } = backends;
    return {
      url: address.url,
      port,
      lambdaEndpoint,
      tableName: backends.tableName,
      bucket: backends.bucket,
      dynamodbEndpoint: backends.dynamodbEndpoint,
      s3Credentials: credentials,
      s3Endpoint: objectStore.endpoint,
      ...(s3PublicEndpoint === undefined ? {} : { s3PublicEndpoint }),
      ...(dynamodbPid === undefined ? {} : { dynamodbPid }),
      identityProvider,
      wiring,
      malwareScanning,
      notifications: { queue: notifications.queue, deadLetters: notifications.deadLetters },
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** DynamoDB's and S3's stand-ins, the table and bucket on them, and the identity provider. */
async function startBackends(
  options: LocalStageOptions,
  host: string,
  env: LocalOverrides,
  malwareScanning: boolean,
  stops: (() => Promise<void>)[],
) {
  const tableName = options.tableName ?? LOCAL_TABLE;
  const bucket = options.bucket ?? LOCAL_BUCKET;
  const given = options.standIns;
  const ownCredentials = await stageCredentials(options.dataDir);
  const credentials = given?.s3Credentials ?? ownCredentials;
  const store = {
    host,
    credentials,
    releaser: releaserCredentials(credentials),
    malwareScanning,
    corsRules: bucketCorsRules(env.ALLOWED_ORIGINS),
  };
  const [dynamodb, objectStore] = await startStandIns(options, store, stops);
  const [identityProvider] = await Promise.all([
    loadIdentityProvider(options.dataDir),
    ensureTable(dynamodb.endpoint, tableName),
    ensureBucket(objectStore.endpoint, bucket, credentials),
  ]);
  return {
    ...{ tableName, bucket, ownCredentials, credentials, identityProvider },
    ...{ dynamodbEndpoint: dynamodb.endpoint, dynamodbPid: dynamodb.pid },
    objectStore,
    ownStore: 'store' in objectStore ? objectStore : undefined,
  };
}

/** The stand-ins the caller gives none of; a given one is only its endpoint. */
async function startStandIns(
  { standIns: given, dataDir }: LocalStageOptions,
  store: Omit<Parameters<typeof startObjectStore>[0], 'directory'>,
  stops: (() => Promise<void>)[],
) {
  const running = (endpoint: string): Promise<RunningStandIn | RunningObjectStore> =>
    Promise.resolve({ endpoint, stop: async () => {} });
  const started: RunningStandIn[] = [];
  stops.push(async () => {
    await Promise.allSettled(started.map((standIn) => standIn.stop()));
  });
  return startBoth(
    given === undefined
      ? startDynamoDbLocal({ directory: join(dataDir, 'dynamodb') })
      : running(given.dynamodbEndpoint),
    given?.s3Endpoint === undefined
      ? startObjectStore({ ...store, directory: join(dataDir, 's3') })
      : running(given.s3Endpoint),
    started,
  );
}

/** The stage's URL, and where other machines reach its store: the public host, if any. */
function stageAddress(
  host: string,
  port: number,
  givenPublicHost: string | undefined,
  objectStore: RunningStandIn,
) {
  const publicHost = givenPublicHost ?? publicHostOf(host);
  const urlHost =
    host === '127.0.0.1' ? 'localhost' : isWildcard(host) ? (publicHost ?? 'localhost') : host;
  const s3PublicEndpoint =
    publicHost === undefined
      ? undefined
      : endpointOf(publicHost, Number(new URL(objectStore.endpoint).port));
  return { url: endpointOf(urlHost, port), s3PublicEndpoint };
}

/** SQS with the stack's redrive policy; `consume` runs the worker Lambda runs. */
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
      const invoke = stackInvoker(wiring, deliverNotificationFunction.id);
      queue.consume(async (event) => (await invoke(event)) as SQSBatchResponse | undefined);
    },
    stop: async () => {
      await Promise.all([queue.stop(), deadLetters.stop()]);
    },
  };
}

/** What every handler is built on: the deployed adapters, on the stand-ins. */
function localWiring(
  options: LocalStageOptions,
  { CHAT_WEBHOOK_URL, ALLOWED_ORIGINS, LOCAL_SCAN_DELAY_MS, ...read }: LocalOverrides,
  stage: Pick<LocalStage, 'url' | 'tableName' | 'bucket' | 'malwareScanning' | 'notifications'> & {
    readonly endpoints: Endpoints;
    readonly credentials: Credentials;
  },
): LocalWiring {
  const settings: ServiceSettings = {
    ...variableDefaults(),
    ...read,
    ...options.settings,
    STAGE: 'local',
    REALTIME_ISSUER: stage.url,
    MALWARE_SCANNING: stage.malwareScanning ? 'on' : 'off',
  };
  const chatWebhookUrl = options.chatWebhookUrl ?? CHAT_WEBHOOK_URL;
  const clients = localClients(stage.endpoints, stage.credentials);
  const adapters = localAdapters({
    clients,
    tableName: stage.tableName,
    bucket: stage.bucket,
    notifications: stage.notifications,
    realtimeKeysFile: realtimeKeysFile(options.dataDir),
    chatLogFile: chatLogFile(options.dataDir),
    chatTimeoutSeconds: settings.CHAT_TIMEOUT_SECONDS,
    ...(chatWebhookUrl === undefined ? {} : { chatWebhookUrl }),
  });
  return { adapters, settings, clients };
}

/** Lambda's Invoke API, on loopback whatever HOST says: it runs any function. */
async function serveLambdaInvokeApi(
  wiring: LocalWiring,
  credentials: Credentials,
  stops: (() => Promise<void>)[],
): Promise<string> {
  const server = createServer(createLambdaInvokeApi({ wiring, credentials }));
  const port = await listen(server, 0, '127.0.0.1');
  stops.push(() => closeServer(server));
  return `http://localhost:${String(port)}`;
}

/** S3's ObjectCreated events to the finalizer, through the bucket's notification filter. */
const startFinalizer = (objectStore: RunningObjectStore, wiring: LocalWiring) =>
  forwardObjectCreated(
    objectStore.store,
    wiring,
    finalizeDirectUploadFunction.id,
    DIRECT_UPLOAD_OBJECT_PREFIX,
  );

/**
 * The scanner on new objects, its verdicts delivered as EventBridge invokes the function; and
 * on every file still waiting for one, whose scan or verdict a killed run took with it.
 */
function startScanning(
  objectStore: RunningObjectStore | undefined,
  wiring: LocalWiring,
  { bucket, ...scanner }: LocalScannerOptions & { readonly bucket: string },
): { drain(): Promise<void> } {
  // A local verdict may beat the file's record; the handler throws until it is there.
  const verdicts = asyncInvoker(wiring, recordScanVerdictFunction.id, [1000, 5000]);
  if (objectStore === undefined) return { drain: () => verdicts.drain() };
  const scans = scanObjectsCreated({
    ...scanner,
    store: objectStore.store,
    deliver: (event) => {
      verdicts.invoke(event);
    },
  });
  const redrive = listHeldFiles(wiring.adapters)
    .then((held) => {
      for (const { file, standing } of held) {
        if (standing === 'pending') scans.rescan(bucket, fileObjectKey(file));
      }
    })
    .catch((error: unknown) => {
      console.error('[malware scanner] could not list the files still pending:', error);
    });
  return {
    drain: async () => {
      await redrive;
      await scans.drain();
      await verdicts.drain();
    },
  };
}
