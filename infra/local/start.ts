/**
 * `npm start`: the local stage on http://localhost:8000 (PORT overrides), with its data under
 * .data/ (LOCAL_DATA_DIR overrides). Ctrl-C stops it and everything it started.
 */
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR, listen, type LocalStage, startLocalStage } from './local-stage.ts';
import { reapOrphans, removeStageRecord, runningStage, writeStageRecord } from './stage-lock.ts';

const started = performance.now();
const dataDir = resolve(process.env.LOCAL_DATA_DIR ?? DEFAULT_DATA_DIR);
const port = Number(process.env.PORT ?? 8000);
const host = process.env.HOST ?? '127.0.0.1';
process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`PORT must be a port number, got "${process.env.PORT ?? ''}"`);

const portTaken = (): never =>
  fail(
    `port ${port} is already in use (is another \`npm start\` running?). Stop it, or choose another port: PORT=${port + 1} npm start`,
  );

// The port first: a second `npm start` should hear about the port, not the data folder.
const probe = createServer();
await listen(probe, port, host).catch(portTaken);
await new Promise((done) => probe.close(done));

await mkdir(dataDir, { recursive: true });
const holder = await runningStage(dataDir);
if (holder !== undefined) {
  fail(
    `the data folder ${dataDir} is in use by another local stage (pid ${holder.pid}, ${holder.url}). Stop it first, or set LOCAL_DATA_DIR.`,
  );
}
await reapOrphans(dataDir);

let stage: LocalStage;
try {
  stage = await startLocalStage({
    dataDir,
    port,
    host,
    onRequest: (line) => {
      console.log(
        `${line.method} ${line.path} ${line.status} ${line.ms}ms ${line.functionId} ${line.requestId}`,
      );
    },
  });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') portTaken();
  fail(
    `the local stage could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
}

await writeStageRecord(dataDir, {
  pid: process.pid,
  url: stage.url,
  dynamodbEndpoint: stage.dynamodbEndpoint,
  s3Endpoint: stage.s3Endpoint,
  ...(stage.dynamodbPid === undefined ? {} : { dynamodbPid: stage.dynamodbPid }),
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the local stage...`);
  await stage.close();
  await removeStageRecord(dataDir);
  console.log('Stopped.');
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void stop(signal));
}

const token = await stage.identityProvider.issueToken({ userId: 1, expiresIn: 3600 });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`
File service, local stage: up on ${stage.url} in ${seconds} s
  data      ${dataDir}
  DynamoDB  ${stage.dynamodbEndpoint} (table ${stage.tableName})
  S3        ${stage.s3Endpoint} (bucket ${stage.bucket})

Demo token for user 1, valid for 1 hour (another: npm run --silent token -- --user 42):
  ${token}

Try:
  curl -H "Authorization: Bearer ${token}" ${stage.url}/api/v1/user/me/file

Ctrl-C stops it.
`);
