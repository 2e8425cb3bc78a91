/**
 * `npm run --silent invoke -- <FunctionId> [--event <file>|-] [--stage ...]`: runs one of the
 * service's functions with an event through Lambda's Invoke API, as `sam local invoke` does:
 * the running `npm start`'s (its functions, adapters, emulators and queues), or a deployed
 * stage's. One code path for both; only the endpoint and the function's name differ.
 */
import { readFile } from 'node:fs/promises';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { FUNCTION_ENTRIES } from '#functions/service-functions.ts';
import { OperatorRefusal } from '../../admin/operator-refusal.ts';
import { readStackOutputs } from '../../admin/stack-outputs.ts';
import { apiStackName, functionNameOutput, STAGE_NAMES, type StageName } from '../../stages.ts';
import { AmbiguousDataFolder, chooseDataFolder, stageHome } from '../stage/data-folder.ts';
import { LOCAL_REGION } from '../stage/emulators.ts';
import { readStageCredentials } from '../stage-credentials.ts';
import { parseCommandLine } from '#infra/command-line.ts';
import { runningStage } from '../stage/stage-lock.ts';

const FUNCTION_IDS = [...FUNCTION_ENTRIES.keys()];

const USAGE = `usage: npm run --silent invoke -- <FunctionId> [--event <file>|-] [--stage <stage>]

Runs one of the service's functions with an event, through Lambda's Invoke API, and prints
what it returned on stdout as JSON; its log (the last 4 KB, as Lambda hands it back) goes to
stderr. Exit 0 when the function returned, 1 when it threw or timed out (Lambda's error is
then what stdout shows) or could not be reached, 2 on a usage error.

  --event <file>   the event's JSON; standard input when "-" or absent. Make one with
                   npm run --silent event -- --help
  --stage <stage>  local (the default): the functions of the running \`npm start\`, on its
                   emulators, settings and queues (LOCAL_DATA_DIR names the stage when several
                   run). development or production: the deployed function, with your AWS
                   credentials and region; the API stack's outputs name it.

functions:
${FUNCTION_IDS.map((id) => `  ${id}`).join('\n')}

The manual: docs/local-stage.md
`;

/** A usage error: exit 2, with the usage unless the message says all there is to say. */
function usageError(message: string, withUsage = true): never {
  process.stderr.write(`invoke: ${message}\n${withUsage ? `\n${USAGE}` : ''}`);
  process.exit(2);
}

function refuse(message: string): never {
  process.stderr.write(`invoke: ${message}\n`);
  process.exit(1);
}

const { values, positionals } = parseCommandLine(
  {
    event: { type: 'string' },
    stage: { type: 'string', default: 'local' },
  },
  USAGE,
  usageError,
);
const [functionId, ...extra] = positionals;
if (functionId === undefined) usageError('name a function');
if (extra.length > 0) usageError(`unexpected argument "${extra.join(' ')}"`);
if (!FUNCTION_ENTRIES.has(functionId as never)) {
  usageError(
    `unknown function "${functionId}"; the functions are: ${FUNCTION_IDS.join(', ')}`,
    false,
  );
}
const stage = values.stage as StageName;
if (!STAGE_NAMES.includes(stage)) {
  usageError(`--stage must be one of ${STAGE_NAMES.join(', ')}, got "${values.stage}"`);
}

async function readEvent(): Promise<string> {
  const source = values.event ?? '-';
  if (source !== '-') {
    return readFile(source, 'utf8').catch(() =>
      usageError(`cannot read the event file "${source}"`, false),
    );
  }
  if (process.stdin.isTTY) usageError('no event: give --event <file>, or pipe one in');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const event = await readEvent();
try {
  JSON.parse(event);
} catch (error) {
  usageError(
    `the event is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    false,
  );
}

/** The Invoke API to send to, and the function's name there. */
async function target(): Promise<{ client: LambdaClient; functionName: string }> {
  // Exactly once: a retried invocation would run the function's side effects twice.
  const once = { maxAttempts: 1 };
  if (stage !== 'local') {
    const stackName = apiStackName(stage);
    const outputs = await readStackOutputs(stackName, stage);
    const functionName = outputs[functionNameOutput(functionId ?? '')];
    if (functionName === undefined) {
      throw new OperatorRefusal(
        `stack ${stackName} has no ${functionNameOutput(functionId ?? '')} output: deploy this version of the service first`,
      );
    }
    return { client: new LambdaClient(once), functionName };
  }
  let dataDir: string;
  try {
    dataDir = (await chooseDataFolder(process.env, stageHome(process.env))).dataDir;
  } catch (error) {
    if (error instanceof AmbiguousDataFolder) usageError(error.message);
    throw error;
  }
  const record = await runningStage(dataDir);
  if (record === undefined) {
    throw new OperatorRefusal(
      `no local stage is running on ${dataDir}: start one with \`npm start\` (or name a deployed stage with --stage development|production)`,
    );
  }
  if (typeof record.lambdaEndpoint !== 'string') {
    throw new OperatorRefusal(
      `the local stage on ${dataDir} was started by an older version: restart \`npm start\``,
    );
  }
  const credentials = await readStageCredentials(dataDir);
  if (credentials === undefined) {
    throw new OperatorRefusal(`the local stage on ${dataDir} has no credentials.json: restart it`);
  }
  const client = new LambdaClient({
    ...once,
    endpoint: record.lambdaEndpoint,
    region: LOCAL_REGION,
    credentials,
  });
  return { client, functionName: functionId ?? '' };
}

let invoked;
try {
  const { client, functionName } = await target();
  try {
    invoked = await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        Payload: Buffer.from(event),
        LogType: 'Tail',
      }),
    );
  } finally {
    client.destroy();
  }
} catch (error) {
  if (error instanceof OperatorRefusal) refuse(error.message);
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  refuse(`${functionId} could not be invoked on the ${stage} stage: ${message}`);
}
if (invoked.LogResult !== undefined) {
  process.stderr.write(Buffer.from(invoked.LogResult, 'base64').toString('utf8'));
}
process.stdout.write(`${Buffer.from(invoked.Payload ?? new Uint8Array()).toString('utf8')}\n`);
process.exitCode = invoked.FunctionError === undefined ? 0 : 1;
