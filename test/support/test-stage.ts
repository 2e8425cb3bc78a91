import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { listAllObjects } from '#shared/storage/aws/list-all-objects.ts';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { s3ClientOptions } from '#infra/local/stage/stand-ins.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { runAdmin } from '#infra/admin/run-admin.ts';
import { serviceContract } from './contract-check.ts';
import { putItems } from './put-items.ts';
import { eventually } from './eventually.ts';
import type { IssueTokenOptions } from '#infra/local/gateway/identity-provider.ts';
import type { RequestLogLine } from '#infra/local/gateway/gateway.ts';
import {
  type LocalStage,
  type LocalStageOptions,
  startLocalStage,
} from '#infra/local/stage/local-stage.ts';
import { stageRecordOf, writeStageRecord } from '#infra/local/stage/stage-lock.ts';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { isRefusalSlotItem } from '#shared/access-trail/adapters/access-entry-item.ts';

/** A bucket name that starts with `prefix`, as long as a deployed one (ending in no `-`). */
export function bucketNameAsLongAsDeployed(prefix: string): string {
  const name = `${prefix}-${'bucket-named-as-long-as-a-deployed-one-'.repeat(2)}`.slice(0, 63);
  return name.endsWith('-') ? `${name.slice(0, -1)}0` : name;
}

/** Clients on the run's stand-ins, for seeding and for checking what was stored. */
export function standInClients() {
  const { dynamodbEndpoint, s3Endpoint, s3Credentials } = inject('standIns');
  const dynamodb = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: dynamodbEndpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    }),
  );
  const s3 = new S3Client({
    ...s3ClientOptions(s3Endpoint),
    region: LOCAL_REGION,
    credentials: s3Credentials,
  });
  return { dynamodb, s3, dynamodbEndpoint, s3Endpoint, s3Credentials };
}

export interface TestStage extends LocalStage {
  /** Its data folder, with the stage record the operator CLI finds it by (LOCAL_DATA_DIR). */
  readonly dataDir: string;
  /** A bearer token from the stage's identity provider. */
  token(userId: number | string, options?: Omit<IssueTokenOptions, 'userId'>): Promise<string>;
  /** A request to the stage; `as` adds a fresh token for that user. */
  request(path: string, init?: RequestInit & { as?: number }): Promise<Response>;
  /** Every item in the stage's table. */
  items(): Promise<Record<string, unknown>[]>;
  /** Every entry in the stage's access trail (its own table), as stored: no refusal slot. */
  trailItems(): Promise<Record<string, unknown>[]>;
  /** Every object key in the stage's bucket. */
  objectKeys(): Promise<string[]>;
  put(items: readonly object[]): Promise<void>;
  /** A client on the stage's own object store. */
  readonly s3: S3Client;
  /**
   * Everything stored: items (but the id counters, whose blocks a refused upload may have
   * advanced, and the notify allowances, which a call that failed on our side still spent),
   * object keys and their ETags. Equal before and after means a request stored nothing.
   */
  stored(): Promise<{
    items: Record<string, unknown>[];
    objects: string[];
    /** Each object's ETag: an object overwritten in place shows here. */
    etags: Record<string, string>;
  }>;
  /** POST /api/v1/user/me/file with this body, as this user. */
  upload(
    as: number,
    form: { body: Buffer; contentType: string },
    headers?: Record<string, string>,
  ): Promise<Response>;
  /**
   * GET the file's download route as this user, once its malware scan is over: while the
   * route answers 409 with Retry-After (a scan under way) it is asked again. Any other answer,
   * a 302 or a refusal, is the route's.
   */
  download(as: number, fileId: number | string, init?: RequestInit): Promise<Response>;
  /** `npm run admin -- <args>` on this stage, in this process: exit code, stdout, stderr. */
  admin(args: readonly string[]): Promise<{ code: number; out: string; err: string }>;
  /** `npm run admin -- reconcile --settle-seconds 0` on this stage: its JSON, found or clean. */
  reconcile(): Promise<{ clean: boolean } & Record<string, unknown>>;
  /**
   * Every request the gateway has finished with, in order: what `npm start` logs. A client
   * that went away mid-body shows as 499 once the gateway has given up on it.
   */
  finishedRequests(): readonly RequestLogLine[];
  /**
   * What the stage sent since the last call that the OpenAPI document does not describe:
   * every response is checked as it goes out, whoever asked (fetch, a raw socket, a browser).
   */
  takeContractViolations(): string[];
}

/**
 * The notify allowance of a test stage unless its test asks for another: more than any test
 * sends. Tests that are not about the limit are not held to it (the recorded FastAPI answers
 * notify thirty times in a row as one user); the limit's own tests pass the stage defaults.
 */
const UNLIMITED_NOTIFY = { NOTIFY_BURST: 1000, NOTIFY_RATE_PER_MINUTE: 6000 } as const;

/**
 * The local stage, in this test process, on a free port, with a table and bucket of its own
 * on the run's stand-ins: real HTTP in, real DynamoDB and S3 behind. Every response it sends
 * is held against the OpenAPI document.
 */
export async function startTestStage(
  options: Pick<
    LocalStageOptions,
    | 'chatWebhookUrl'
    | 'handlerEndpoints'
    | 'host'
    | 'publicHost'
    | 'malwareScanning'
    | 'scanner'
    | 'settings'
  > = {},
): Promise<TestStage> {
  const clients = standInClients();
  const dataDir = await mkdtemp(join(tmpdir(), 'file-service-stage-'));
  const suffix = randomUUID().slice(0, 8);
  let violations: string[] = [];
  const finished: RequestLogLine[] = [];
  // The stage runs its own object store, as `npm start` does, so S3 events reach the finalizer.
  const stage = await startLocalStage({
    dataDir,
    port: 0,
    standIns: { dynamodbEndpoint: clients.dynamodbEndpoint },
    tableName: `test-${suffix}`,
    // As long as a deployed bucket's name can be: answers carry it.
    bucket: bucketNameAsLongAsDeployed(`test-${suffix}`),
    onRequest: (line) => {
      finished.push(line);
    },
    onResponse: (response) => {
      violations.push(...serviceContract.check(response));
    },
    settings: { ...UNLIMITED_NOTIFY, ...options.settings },
    ...(options.chatWebhookUrl === undefined ? {} : { chatWebhookUrl: options.chatWebhookUrl }),
    ...(options.handlerEndpoints === undefined
      ? {}
      : { handlerEndpoints: options.handlerEndpoints }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.publicHost === undefined ? {} : { publicHost: options.publicHost }),
    ...(options.malwareScanning === undefined ? {} : { malwareScanning: options.malwareScanning }),
    ...(options.scanner === undefined ? {} : { scanner: options.scanner }),
  });
  // The operator CLI finds a stage by this record, as it finds `npm start`.
  await writeStageRecord(dataDir, stageRecordOf(stage));
  const s3 = new S3Client({
    ...s3ClientOptions(stage.s3Endpoint),
    region: LOCAL_REGION,
    credentials: stage.s3Credentials,
  });
  const token: TestStage['token'] = (userId, options = {}) =>
    stage.identityProvider.issueToken({ userId, ...options });
  const request: TestStage['request'] = async (path, { as, headers, ...init } = {}) => {
    const auth: Record<string, string> =
      as === undefined ? {} : { authorization: `Bearer ${await token(as)}` };
    return fetch(`${stage.url}${path}`, {
      ...init,
      headers: { ...auth, ...(headers as Record<string, string> | undefined) },
    });
  };
  const scan = async (tableName: string) => {
    const found: Record<string, unknown>[] = [];
    for await (const page of paginateScan(
      { client: clients.dynamodb },
      { TableName: tableName, ConsistentRead: true },
    )) {
      found.push(...(page.Items ?? []));
    }
    return found;
  };
  const items = () => scan(stage.tableName);
  const listed = async () => {
    const etags: Record<string, string> = {};
    for await (const page of listAllObjects(s3, stage.bucket)) {
      for (const object of page) etags[object.Key ?? ''] = object.ETag ?? '';
    }
    return etags;
  };
  const objectKeys = async () => Object.keys(await listed()).sort();
  const admin: TestStage['admin'] = async (args) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(args, {
      env: { LOCAL_DATA_DIR: dataDir },
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  return {
    ...stage,
    dataDir,
    token,
    request,
    items,
    trailItems: async () =>
      (await scan(trailTableNameOf(stage.tableName))).filter((item) => !isRefusalSlotItem(item)),
    objectKeys,
    stored: async () => {
      return {
        items: (await items())
          .filter(
            (item) => !String(item.PK).startsWith('COUNTER#') && item.entity !== 'TokenBucket',
          )
          // A malware-scan verdict lands on a record whenever its scan ends: no request's doing.
          .map(({ scan: _verdict, ...item }) => item)
          // A usage is what it counts: a change undone (a delete whose bytes would not go, so
          // its record came back) leaves the counts as they were, though not its version.
          .map((item) => {
            if (item.entity !== 'Usage') return item;
            const { version: _version, counted_at: _counted, ...counts } = item;
            return counts;
          })
          .sort((a, b) =>
            `${String(a.PK)} ${String(a.SK)}`.localeCompare(`${String(b.PK)} ${String(b.SK)}`),
          ),
        ...(await listed().then((etags) => ({ objects: Object.keys(etags).sort(), etags }))),
      };
    },
    upload: (as, form, headers = {}) =>
      request('/api/v1/user/me/file', {
        method: 'POST',
        as,
        body: form.body,
        headers: { 'content-type': form.contentType, ...headers },
      }),
    download: async (as, fileId, init = {}) =>
      eventually(async () => {
        const response = await request(`/api/v1/user/me/file/${String(fileId)}/download`, {
          redirect: 'manual',
          ...init,
          as,
        });
        if (response.status !== 409 || !response.headers.has('retry-after')) return response;
        await response.body?.cancel();
        return undefined;
      }),
    put: (items) => putItems(clients.dynamodb, stage.tableName, items),
    s3,
    admin,
    reconcile: async () => {
      const { code, out, err } = await admin(['reconcile', '--settle-seconds', '0']);
      // 3: it ran, and found something; the JSON says what.
      if (code !== 0 && code !== 3) throw new Error(`reconcile failed (${String(code)}): ${err}`);
      return JSON.parse(out) as { clean: boolean } & Record<string, unknown>;
    },
    finishedRequests: () => finished,
    takeContractViolations: () => {
      const taken = violations;
      violations = [];
      return taken;
    },
    close: async () => {
      s3.destroy();
      await stage.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A test stage for this file: started before its tests, closed after them. */
export function useTestStage(
  options: () => Parameters<typeof startTestStage>[0] = () => ({}),
): () => TestStage {
  let stage: TestStage | undefined;
  // Each test answers for what the stage sent while it ran.
  const checkContract = () => {
    const violations = stage?.takeContractViolations() ?? [];
    if (violations.length > 0) {
      throw new Error(`Not as the OpenAPI document says:\n${violations.join('\n')}`);
    }
  };
  beforeAll(async () => {
    stage = await startTestStage(options());
  });
  afterEach(checkContract);
  afterAll(async () => {
    try {
      checkContract();
    } finally {
      await stage?.close();
    }
  });
  return () => {
    if (stage === undefined) throw new Error('The test stage starts in beforeAll');
    return stage;
  };
}
