/**
 * `npm start`: the local stage on http://localhost:8000 (PORT overrides), with its data under
 * .data/ (LOCAL_DATA_DIR overrides). Ctrl-C stops it and everything it started.
 */
import { resolve } from 'node:path';
import type { LocalStage } from './local-stage.ts';
import { LOCAL_STAGE_VARIABLES } from './local-stage-variables.ts';
import { stageHome } from './data-folder.ts';

const USAGE = `usage: npm start [-- --help]

The whole service on this machine: API Gateway's stand-in on http://localhost:8000, the
deployed handler modules, DynamoDB Local, an object store of its own, the notification queue in process, and a
stand-in for GuardDuty's malware scan (MALWARE_SCANNING=off turns it off).
Ctrl-C stops it. The manual: docs/local-stage.md

environment:
${LOCAL_STAGE_VARIABLES.map((v) => `  ${v.name.padEnd(24)} ${v.default.padEnd(11)} ${v.meaning.replaceAll('`', '')}`).join('\n')}
`;

// Checked before anything loads: --help binds no port, makes no folder, loads no SDK.
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
/**
 * `--port 19138` (or `--port=19138`, `--data-dir x`) as the variable that sets it:
 * `PORT=19138 npm start`; undefined for a word that names no variable.
 */
function variableFor(given: readonly string[]): string | undefined {
  const [flag = '', next] = given;
  const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/i.exec(flag);
  if (match?.[1] === undefined) return undefined;
  const wanted = match[1].toUpperCase().replaceAll('-', '_');
  const variable = LOCAL_STAGE_VARIABLES.find(
    (v) => v.name === wanted || v.name.endsWith(`_${wanted}`),
  );
  if (variable === undefined) return undefined;
  const value = match[2] ?? (next === undefined || next.startsWith('-') ? '<value>' : next);
  return `${variable.name}=${value} npm start`;
}

if (args.length > 0) {
  const hint = variableFor(args);
  process.stderr.write(
    hint === undefined
      ? `npm start: unexpected argument "${args.join(' ')}"\n\n${USAGE}`
      : `npm start: takes no options; it reads its settings from the environment: ${hint}\n\n${USAGE}`,
  );
  process.exit(2);
}

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
// Loaded once the arguments are known good: the stage, its emulators and the AWS SDK.
const { keepDataFolderPrivate, registerRunningStage } = await import('./data-folder.ts');
const { startLocalStage } = await import('./local-stage.ts');
const { reapOrphans, removeStageRecord, runningStage, stageRecordOf, writeStageRecord } =
  await import('./stage-lock.ts');
const { prefixConsoleWithFunctionNames } = await import('../lambda/invocation-logs.ts');
// Every function, the finalizer and the queue's worker share this console: each line a
// function writes starts with its name.
prefixConsoleWithFunctionNames();

// .data/, unless LOCAL_STAGE_HOME moves it: where this stage registers, and its default folder.
const home = stageHome(process.env);
const dataDir = resolve(process.env.LOCAL_DATA_DIR ?? home);
const port = Number(process.env.PORT ?? 8000);
const host = process.env.HOST ?? '127.0.0.1';
const publicHost = blank(process.env.PUBLIC_HOST) ? undefined : process.env.PUBLIC_HOST;

/** A start refused for a reason the developer can act on; its message is the whole story. */
class StartRefused extends Error {}

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  fail(`PORT must be a port number, got "${process.env.PORT ?? ''}"`);
}

let stage: LocalStage | undefined;
let recorded = false;
let unregister: (() => Promise<void>) | undefined;
// Set by a signal handler, which the control flow below cannot see.
const shutdown = { requested: false };

async function stop(): Promise<never> {
  await stage?.close();
  if (recorded) await removeStageRecord(dataDir);
  await unregister?.();
  console.log('Stopped.');
  process.exit(0);
}

// Installed before anything starts: a signal during startup stops it once it is up.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (shutdown.requested) return;
    shutdown.requested = true;
    console.log(`\n${signal}: stopping the local stage...`);
    if (stage !== undefined) void stop();
  });
}

try {
  stage = await startLocalStage({
    dataDir,
    port,
    host,
    ...(publicHost === undefined ? {} : { publicHost }),
    // The port is bound by now, so a second `npm start` hears about the port first.
    onListening: async () => {
      // Before anything is written: this also sets the umask of the stage and its emulators.
      const was = await keepDataFolderPrivate(dataDir);
      if (was !== undefined) {
        console.log(
          `The data folder ${dataDir} was open to other accounts (mode 0${was.toString(8)}): now 0700, yours alone.`,
        );
      }
      const holder = await runningStage(dataDir);
      if (holder !== undefined) {
        throw new StartRefused(
          `the data folder ${dataDir} is in use by another local stage (pid ${holder.pid}, ${holder.url}). Stop it first, or set LOCAL_DATA_DIR.`,
        );
      }
      reapOrphans(dataDir);
    },
    // One line per request, whatever the log level: what came in, what went out, who answered.
    onRequest: (line) => {
      console.log(
        `${line.method} ${line.path} ${line.status} ${line.ms}ms ${line.functionId} ${line.requestId}`,
      );
    },
  });
  if (shutdown.requested) await stop();
  await writeStageRecord(dataDir, stageRecordOf(stage));
  recorded = true;
  // CLIs started without this LOCAL_DATA_DIR find the stage by this registration.
  unregister = await registerRunningStage(home, {
    pid: process.pid,
    url: stage.url,
    dataDir,
  });
  const token = await stage.identityProvider.issueToken({ userId: 1, expiresIn: 3600 });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`
File service, local stage: up on ${stage.url} in ${seconds} s
  data      ${dataDir}
  DynamoDB  ${stage.dynamodbEndpoint} (table ${stage.tableName})
  S3        ${stage.s3Endpoint} (bucket ${stage.bucket})${stage.s3PublicEndpoint === undefined ? '' : `, links name ${stage.s3PublicEndpoint}`}
  Lambda    ${stage.lambdaEndpoint} (Invoke API: npm run --silent invoke -- --help)

Demo token for user 1, valid for 1 hour (another: npm run --silent token -- --user 42):
  ${token}

Try:
  curl -H "Authorization: Bearer ${token}" ${stage.url}/api/v1/user/me/file

API reference: ${stage.url}/docs (Authorize, paste the token, Try it out)
OpenAPI document: ${stage.url}/openapi.json

Groups, members, deals and deal files: npm run --silent admin -- --help

Ctrl-C stops it.
`);
} catch (error) {
  await stage?.close();
  if (recorded) await removeStageRecord(dataDir);
  await unregister?.();
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    fail(
      `port ${port} is already in use (is another \`npm start\` running?). Stop it, or choose another port: PORT=${port + 1} npm start`,
    );
  }
  if (error instanceof StartRefused) fail(error.message);
  fail(
    `the local stage could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
}
