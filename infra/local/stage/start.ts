/**
 * `npm start`: the local stage on http://localhost:8000 (PORT overrides), with its data under
 * .data/ (LOCAL_DATA_DIR overrides). Ctrl-C stops it and everything it started.
 */
import { parseCommandLine } from '#infra/command-line.ts';
import type { LocalStage } from './local-stage.ts';
import { LOCAL_STAGE_VARIABLES } from './local-stage-variables.ts';
import { dataFolder, keepDataFolderPrivate } from './data-folder.ts';

const USAGE = `usage: npm start [-- --help]

The whole service on this machine: API Gateway's stand-in on http://localhost:8000, the
deployed handler modules, DynamoDB Local, an object store of its own, the notification queue in process, and a
stand-in for GuardDuty's malware scan (MALWARE_SCANNING=off turns it off).
Ctrl-C stops it. The manual: docs/local-stage.md

environment:
${LOCAL_STAGE_VARIABLES.map((v) => `  ${v.name.padEnd(24)} ${v.default.padEnd(11)} ${v.meaning.replaceAll('`', '')}`).join('\n')}
`;

function fail(message: string, code = 1): never {
  console.error(`npm start: ${message}`);
  process.exit(code);
}

// Before anything loads: --help binds no port, makes no folder, loads no SDK.
parseCommandLine(
  {},
  USAGE,
  (mistake) => fail(`${mistake}; settings are environment variables\n\n${USAGE.trimEnd()}`, 2),
  { positionals: false },
);

const started = performance.now();
// Before anything loads: the handlers' logger and metrics read these when first imported.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_NAMESPACE ??= 'FileService/local';
// The console is for people: a line per request (below), and only what a function warns of,
// unless POWERTOOLS_LOG_LEVEL or LOG_LEVEL (which Powertools also reads) asks for more.
const blank = (value: string | undefined) => (value ?? '').trim() === '';
if (blank(process.env.POWERTOOLS_LOG_LEVEL) && blank(process.env.LOG_LEVEL)) {
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
}
const { startLocalStage } = await import('./local-stage.ts');
const { reapOrphan, removeStageRecord, runningStage, stageRecordOf, writeStageRecord } =
  await import('./stage-lock.ts');
const { prefixConsoleWithFunctionNames } = await import('../lambda/invocation-logs.ts');
// Every function, the finalizer and the queue's worker share this console.
prefixConsoleWithFunctionNames();

const dataDir = dataFolder(process.env);
const port = Number(process.env.PORT ?? 8000);
const host = process.env.HOST ?? '127.0.0.1';
const publicHost = blank(process.env.PUBLIC_HOST) ? undefined : process.env.PUBLIC_HOST;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  fail(`PORT must be a port number, got "${process.env.PORT ?? ''}"`);
}

let stage: LocalStage | undefined;
let recorded = false;
// Set by a signal handler, which the control flow below cannot see.
const shutdown = { requested: false };

/** Stops what started, in reverse: the stage, then its record. */
async function stopAll(): Promise<void> {
  await stage?.close();
  if (recorded) await removeStageRecord(dataDir);
}

// Installed before anything starts: a signal during startup stops it once it is up.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (shutdown.requested) return;
    shutdown.requested = true;
    console.log(`\n${signal}: stopping the local stage...`);
    if (stage !== undefined) void stopped();
  });
}

async function stopped(): Promise<never> {
  await stopAll();
  console.log('Stopped.');
  process.exit(0);
}

/** Runs once the port is bound: a second `npm start` hears about the port first. */
async function holdDataFolder(): Promise<void> {
  // Before anything is written: this also sets the umask of the stage and its stand-ins.
  const was = await keepDataFolderPrivate(dataDir);
  if (was !== undefined) {
    console.log(
      `The data folder ${dataDir} was open to other accounts (mode 0${was.toString(8)}): now 0700, yours alone.`,
    );
  }
  const holder = await runningStage(dataDir);
  if (holder !== undefined) {
    // Nothing but the port to let go of yet: the message is the whole story.
    fail(
      `the data folder ${dataDir} is in use by another local stage (pid ${holder.pid}, ${holder.url}). Stop it first, or set LOCAL_DATA_DIR.`,
    );
  }
  await reapOrphan(dataDir);
}

/** What the developer reads once the stage is up: where each part is, and a token to try. */
async function banner(up: LocalStage): Promise<string> {
  const token = await up.identityProvider.issueToken({ userId: 1, expiresIn: 3600 });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const links = up.s3PublicEndpoint === undefined ? '' : `, links name ${up.s3PublicEndpoint}`;
  return `
File service, local stage: up on ${up.url} in ${seconds} s
  data      ${dataDir}
  DynamoDB  ${up.dynamodbEndpoint} (table ${up.tableName})
  S3        ${up.s3Endpoint} (bucket ${up.bucket})${links}
  Lambda    ${up.lambdaEndpoint} (Invoke API: npm run --silent invoke -- --help)

Demo token for user 1, valid for 1 hour (another: npm run --silent token -- --user 42):
  ${token}

Try:
  curl -H "Authorization: Bearer ${token}" ${up.url}/api/v1/user/me/file

API reference: ${up.url}/docs (Authorize, paste the token, Try it out)
OpenAPI document: ${up.url}/openapi.json

Groups, members, deals and deal files: npm run --silent admin -- --help

Ctrl-C stops it.
`;
}

try {
  stage = await startLocalStage({
    dataDir,
    port,
    host,
    ...(publicHost === undefined ? {} : { publicHost }),
    onListening: holdDataFolder,
    // One line per request, whatever the log level: what came in, what went out, who answered.
    onRequest: ({ method, path, status, ms, functionId, requestId }) => {
      console.log(`${method} ${path} ${status} ${ms}ms ${functionId} ${requestId}`);
    },
  });
  if (shutdown.requested) await stopped();
  await writeStageRecord(dataDir, stageRecordOf(stage));
  recorded = true;
  console.log(await banner(stage));
} catch (error) {
  await stopAll();
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    fail(
      `port ${port} is already in use (is another \`npm start\` running?). Stop it, or choose another port: PORT=${port + 1} npm start`,
    );
  }
  fail(
    `the local stage could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
}
