/**
 * `npm run --silent invoke -- <FunctionId> [--event <file>|-]`: runs one of the service's
 * functions with an event through the running `npm start`'s Invoke API, as `sam local invoke`
 * does. A deployed function is `aws lambda invoke`'s (the API stack outputs its name).
 */
import { readFile } from 'node:fs/promises';
import { text as streamText } from 'node:stream/consumers';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { FUNCTION_ENTRIES } from '#functions/service-functions.ts';
import { dataFolder, noStageRuns } from '../stage/data-folder.ts';
import { LOCAL_REGION } from '../stage/stand-ins.ts';
import { readStageCredentials } from '../stage-credentials.ts';
import { type CommandLineIo, exitCodeOf, exitWith, parseCommandLine } from '#infra/command-line.ts';
import { runningStage } from '../stage/stage-lock.ts';

const FUNCTION_IDS = [...FUNCTION_ENTRIES.keys()];

const USAGE = `usage: npm run --silent invoke -- <FunctionId> [--event <file>|-]

Runs a function of the running \`npm start\` with an event (a file, or standard input: see
npm run event) through Lambda's Invoke API; prints its result on stdout, its log's last 4 KB
on stderr. Exit 0 when it returned, 1 when it threw, timed out (stdout shows Lambda's error)
or was not reached, 2 on a usage error.

functions:
${FUNCTION_IDS.map((id) => `  ${id}`).join('\n')}

The manual: docs/local-stage.md
`;

/** A usage error: exit 2, with the usage unless the message says all there is to say. */
const usageError = (io: CommandLineIo, message: string, withUsage = true): never =>
  exitWith(io, `invoke: ${message}\n${withUsage ? `\n${USAGE}` : ''}`);

/** The function did not run: exit 1. */
const refuse = (io: CommandLineIo, message: string): never =>
  exitWith(io, `invoke: ${message}\n`, 1);

/** The invoke CLI's run: 0 when the function returned, 1 when not, 2 on bad usage. */
export function runInvoke(args: readonly string[], io: CommandLineIo): Promise<number> {
  return exitCodeOf(async () => {
    const fail = (message: string) => usageError(io, message);
    const options = { event: { type: 'string' } } as const;
    const { values, positionals } = parseCommandLine(options, USAGE, fail, { args, io });
    const [functionId = fail('name a function'), ...extra] = positionals;
    if (extra.length > 0) fail(`unexpected argument "${extra.join(' ')}"`);
    if (!FUNCTION_ENTRIES.has(functionId as never)) {
      const known = FUNCTION_IDS.join(', ');
      usageError(io, `unknown function "${functionId}"; the functions are: ${known}`, false);
    }
    const event = await readEvent(io, values.event ?? '-');
    const client = await stageClient(io, dataFolder(io.env));
    const payload = { FunctionName: functionId, Payload: Buffer.from(event) };
    const invoked = await client
      .send(new InvokeCommand({ ...payload, LogType: 'Tail' }))
      .catch((error: unknown) => refuse(io, `${functionId} could not be invoked: ${String(error)}`))
      .finally(() => {
        client.destroy();
      });
    if (invoked.LogResult !== undefined) {
      io.stderr.write(Buffer.from(invoked.LogResult, 'base64').toString('utf8'));
    }
    io.stdout.write(`${Buffer.from(invoked.Payload ?? new Uint8Array()).toString('utf8')}\n`);
    return invoked.FunctionError === undefined ? 0 : 1;
  });
}

/** The event's text (a file's, or standard input's for `-`), checked to be JSON. */
async function readEvent(io: CommandLineIo, source: string): Promise<string> {
  let text: string;
  if (source !== '-') {
    text = await readFile(source, 'utf8').catch(() =>
      usageError(io, `cannot read the event file "${source}"`, false),
    );
  } else {
    if (io.stdin.isTTY === true) usageError(io, 'no event: give --event <file>, or pipe one in');
    text = await streamText(io.stdin);
  }
  try {
    JSON.parse(text);
  } catch (error) {
    usageError(io, `the event is not JSON: ${(error as Error).message}`, false);
  }
  return text;
}

/** The running stage's Invoke API, signed with its credentials. */
async function stageClient(io: CommandLineIo, dataDir: string): Promise<LambdaClient> {
  const record = await runningStage(dataDir);
  const credentials = await readStageCredentials(dataDir);
  if (record === undefined || credentials === undefined) return refuse(io, noStageRuns(dataDir));
  // Exactly once: a retried invocation would run the function's side effects twice.
  const endpoint = record.lambdaEndpoint;
  return new LambdaClient({ maxAttempts: 1, endpoint, region: LOCAL_REGION, credentials });
}

if (import.meta.main) process.exitCode = await runInvoke(process.argv.slice(2), process);
