import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { deliverNotificationFunction } from '#functions/deliver-notification/function.ts';
import { recordScanVerdictFunction } from '#functions/record-scan-verdict/function.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import { fileObjectKey } from '#shared/storage/keys.ts';
import {
  ensureBucket,
  type RunningStandIn,
  type RunningObjectStore,
  startBoth,
  startObjectStore,
} from './stand-ins.ts';
import { serveHttp } from './listening.ts';
import { LOCAL_BUCKET, LOCAL_TABLE } from './data-folder.ts';
import { ensureTable, startDynamoDbLocal } from '../dynamodb/dynamodb-local.ts';
import { createGateway, type GatewayOptions } from '../gateway/gateway.ts';
import type { LocalWiring } from '../lambda/handler-loader.ts';
import { localAdapters, localClients } from '../adapters/local-adapters.ts';
import { loadIdentityProvider, type LocalIdentityProvider } from '../gateway/identity-provider.ts';
import { createJwtAuthorizer } from '../gateway/jwt-authorizer.ts';
import { InProcessQueue } from '../queue/in-process-queue.ts';
import { stackInvoker } from '../lambda/stack-functions.ts';
import { createLambdaInvokeApi } from '../lambda/lambda-invoke-api.ts';
import type { Credentials } from '../sigv4-check.ts';
import { releaserCredentials, stageCredentials } from '../stage-credentials.ts';
import { deliverToFinalizer } from '../object-store/s3-event-notifications.ts';
import { asyncInvoker } from '../lambda/lambda-async-invoke.ts';
import {
  type LocalScannerOptions,
  scanObjectsCreated,
} from '../object-store/local-malware-scanner.ts';
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
import { type HandlerSettings, variableDefaults } from '#shared/config/environment.ts';
import { listHeldFiles } from '#shared/scanning/held-files.ts';

export { LOCAL_BUCKET, LOCAL_TABLE } from './data-folder.ts';

export const chatLogFile = (dataDir: string): string => join(dataDir, 'chat.jsonl');

export const realtimeKeysFile = (dataDir: string): string =>
  join(dataDir, 'realtime', 'signing-keys.json');

type Endpoints = Parameters<typeof localClients>[0];

/** How to start a stage; its gateway's `onRequest` and `onResponse` see each request. */
export interface LocalStageOptions extends Pick<GatewayOptions, 'onRequest' | 'onResponse'> {
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
  /** Runs once the port is bound, before any stand-in starts; throwing stops the start. */
  readonly onListening?: () => Promise<void>;
  /** Whether stored files are scanned (MALWARE_SCANNING); only with the stage's own store. */
  readonly malwareScanning?: boolean;
  /** Handler settings over the environment's; the stage says its name, URL and scanning. */
  readonly settings?: Partial<
    Omit<HandlerSettings, 'STAGE' | 'REALTIME_ISSUER' | 'MALWARE_SCANNING'>
  >;
  /** Over CHAT_WEBHOOK_URL; without either, chat goes to the console and chat.jsonl. */
  readonly chatWebhookUrl?: string;
  readonly scanner?: LocalScannerOptions;
  /** Where handlers reach DynamoDB and S3 (the hardening suite's fault proxy). */
  readonly handlerEndpoints?: (real: Endpoints) => Promise<Endpoints>;
}

/** A running stage: its endpoints, table and bucket, identity provider, queues and wiring. */
export type LocalStage = Readonly<Awaited<ReturnType<typeof startLocalStage>>>;

/**
 * The whole local stage: DynamoDB's and S3's stand-ins, the table and bucket, the identity
 * provider, the queues and event sources, and the gateway serving every route's handler on
 * localWiring. What it starts, it stops in reverse order.
 */
export async function startLocalStage(options: LocalStageOptions) {
  const host = options.host ?? '127.0.0.1';
  const env = localOverrides(process.env);
  const gateway = await bindGateway(options.port, host);
  const stops: (() => Promise<void>)[] = [];
  const close = async () => {
    await gateway.close();
    for (const stop of stops.reverse()) await stop();
  };
  try {
    await options.onListening?.();
    const { ownStore, ownCredentials, ...stores } = await startStores(options, host, env, stops);
    const address = stageAddress(host, gateway.port, stores.s3Endpoint, options.publicHost);
    const { notifications, consumeWith, stop: stopQueues } = startNotificationQueues(gateway.port);
    stops.push(stopQueues);
    const stage = { ...stores, ...address, port: gateway.port, notifications };
    const wiring = await localWiring(options, env, stage);
    consumeWith(wiring);
    // Before the gateway serves, so that every object it stores is scanned.
    const scanning = startScanning(stores.malwareScanning ? ownStore : undefined, wiring, {
      ...options.scanner,
      delayMs: options.scanner?.delayMs ?? env.LOCAL_SCAN_DELAY_MS,
      bucket: stores.bucket,
    });
    stops.push(() => scanning.drain());
    gateway.serve(routesOf(options, env, wiring, stores.identityProvider));
    // Drained after the Invoke API closes and before the scans: its copies are scanned too.
    if (ownStore !== undefined) {
      const finalizer = deliverToFinalizer(ownStore.store, wiring);
      stops.push(() => finalizer.drain());
    }
    // Lambda's Invoke API, on loopback whatever HOST says: it runs any function.
    const invokeApi = createLambdaInvokeApi({ wiring, credentials: ownCredentials });
    const lambda = await serveHttp(invokeApi, 0, '127.0.0.1');
    stops.push(lambda.close);
    return { ...stage, wiring, lambdaEndpoint: `http://localhost:${String(lambda.port)}`, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The gateway's port, bound first; until it serves, every request is told to come back. */
async function bindGateway(port: number, host: string) {
  let routes: RequestListener = (_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    response.end('{"message":"Service Unavailable"}');
  };
  const front: RequestListener = (request, response) => {
    routes(request, response);
  };
  const serve = (listener: RequestListener) => {
    routes = listener;
  };
  return { ...(await serveHttp(front, port, host)), serve };
}

/**
 * DynamoDB's and S3's stand-ins (a given one is only its endpoint), the table and bucket on
 * them, and the identity provider. Only the stage's own store scans what it stores.
 */
async function startStores(
  options: LocalStageOptions,
  host: string,
  env: LocalOverrides,
  stops: (() => Promise<void>)[],
) {
  const { standIns: given, dataDir } = options;
  const malwareScanning =
    given?.s3Endpoint === undefined && (options.malwareScanning ?? env.MALWARE_SCANNING === 'on');
  const ownCredentials = await stageCredentials(dataDir);
  const credentials = given?.s3Credentials ?? ownCredentials;
  const running = (endpoint: string): Promise<RunningStandIn | RunningObjectStore> =>
    Promise.resolve({ endpoint, stop: async () => {} });
  const [dynamodb, objectStore] = await startBoth(
    given === undefined
      ? startDynamoDbLocal({ directory: join(dataDir, 'dynamodb') })
      : running(given.dynamodbEndpoint),
    given?.s3Endpoint === undefined
      ? startObjectStore({
          ...{ host, credentials, releaser: releaserCredentials(credentials) },
          ...{ malwareScanning, directory: join(dataDir, 's3') },
          corsRules: bucketCorsRules(env.ALLOWED_ORIGINS),
        })
      : running(given.s3Endpoint),
  );
  stops.push(async () => {
    await Promise.allSettled([dynamodb.stop(), objectStore.stop()]);
  });
  const tableName = options.tableName ?? LOCAL_TABLE;
  const bucket = options.bucket ?? LOCAL_BUCKET;
  const [identityProvider] = await Promise.all([
    loadIdentityProvider(dataDir),
    ensureTable(dynamodb.endpoint, tableName),
    ensureBucket(objectStore.endpoint, bucket, credentials),
  ]);
  const ownStore = 'store' in objectStore ? objectStore : undefined;
  return {
    ...{ tableName, bucket, identityProvider, ownCredentials, ownStore, malwareScanning },
    ...{ dynamodbEndpoint: dynamodb.endpoint, dynamodbPid: dynamodb.pid },
    ...{ s3Endpoint: objectStore.endpoint, s3Credentials: credentials },
  };
}

/** The stage's URL, and where other machines reach its store: the public host, if any. */
function stageAddress(host: string, port: number, s3Endpoint: string, given?: string) {
  const publicHost = given ?? publicHostOf(host);
  const urlHost =
    host === '127.0.0.1' ? 'localhost' : isWildcard(host) ? (publicHost ?? 'localhost') : host;
  const s3PublicEndpoint =
    publicHost === undefined ? undefined : endpointOf(publicHost, Number(new URL(s3Endpoint).port));
  return { url: endpointOf(urlHost, port), s3PublicEndpoint };
}

/** SQS with the stack's redrive policy; `consumeWith` runs the worker Lambda runs. */
function startNotificationQueues(port: number) {
  const deadLetters = new InProcessQueue({
    ...{ name: `notifications-dlq-${port}`, visibilityTimeoutMs: 30_000 },
    onArrival: (message) => {
      console.warn(`[notifications] set aside in the dead-letter queue: ${message.body}`);
    },
  });
  const queue = new InProcessQueue({
    ...{ name: `notifications-${port}`, visibilityTimeoutMs: 30_000, batchSize: WORKER_BATCH_SIZE },
    redrive: { maxReceiveCount: DELIVERY_ATTEMPTS + REDRIVE_SLACK, deadLetters },
  });
  return {
    notifications: { queue, deadLetters },
    consumeWith: (wiring: LocalWiring) => {
      const invoke = stackInvoker(wiring, deliverNotificationFunction.id);
      queue.consume(async (event) => (await invoke(event)) as SQSBatchResponse | undefined);
    },
    stop: async () => {
      await Promise.all([queue.stop(), deadLetters.stop()]);
    },
  };
}

/** What every handler is built on: the deployed adapters, on the stand-ins. */
async function localWiring(
  options: LocalStageOptions,
  { CHAT_WEBHOOK_URL, ALLOWED_ORIGINS, LOCAL_SCAN_DELAY_MS, ...read }: LocalOverrides,
  stage: Omit<LocalStage, 'lambdaEndpoint' | 'wiring' | 'close'>,
): Promise<LocalWiring> {
  const settings: HandlerSettings = {
    ...variableDefaults(),
    ...read,
    ...options.settings,
    STAGE: 'local',
    REALTIME_ISSUER: stage.url,
    MALWARE_SCANNING: stage.malwareScanning ? 'on' : 'off',
  };
  // The handlers reach the store where other machines do: the forms and links they sign name it.
  const real = { dynamodb: stage.dynamodbEndpoint, s3: stage.s3PublicEndpoint ?? stage.s3Endpoint };
  const endpoints = (await options.handlerEndpoints?.(real)) ?? real;
  const clients = localClients(endpoints, stage.s3Credentials);
  const adapters = localAdapters({
    ...stage,
    clients,
    trailRetentionDays: settings.ACCESS_TRAIL_RETENTION_DAYS,
    realtimeKeysFile: realtimeKeysFile(options.dataDir),
    chatLogFile: chatLogFile(options.dataDir),
    chatTimeoutSeconds: settings.CHAT_TIMEOUT_SECONDS,
    chatWebhookUrl: options.chatWebhookUrl ?? CHAT_WEBHOOK_URL,
  });
  return { adapters, settings, clients };
}

/** Every route, as API Gateway serves it: the JWT authorizer on the stage's identity provider. */
function routesOf(
  { onRequest, onResponse }: LocalStageOptions,
  { ALLOWED_ORIGINS }: LocalOverrides,
  wiring: LocalWiring,
  identityProvider: LocalIdentityProvider,
): RequestListener {
  const audiences = [identityProvider.audience];
  const authorize = createJwtAuthorizer({ ...identityProvider, audiences });
  const cors = apiCorsRule(ALLOWED_ORIGINS);
  return createGateway({ routes: API_ROUTES, wiring, authorize, onRequest, onResponse, cors });
}

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
