/**
 * `npm run --silent invoke -- <FunctionId> [--event <file>|-] [--stage ...]`: runs one of the
 * service's functions with an event through Lambda's Invoke API, as `sam local invoke` does:
 * the running `npm start`'s, or a deployed stage's. One code path for both; only the endpoint
 * and the function's name differ.
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

Runs a function with an event (a file, or standard input: see npm run event) through Lambda's
Invoke API; prints its result on stdout, its log's last 4 KB on stderr. Exit 0 when it
returned, 1 when it threw, timed out (stdout shows Lambda's error) or was not reached, 2 on a
usage error. --stage: local (the running \`npm start\`'s, by default), or development or
production (the function the API stack names, with your AWS credentials).

functions:
${FUNCTION_IDS.map((id) => `  ${id}`).join('\n')}

The manual: docs/local-stage.md
`;

/** A usage error: exit 2, with the usage unless the message says all there is to say. */
function usageError(message: string, withUsage = true): never {
  process.stderr.write(`invoke: ${message}\n${withUsage ? `\n${USAGE}` : ''}`);
  process.exit(2);
}

const { values, positionals } = parseCommandLine(
  { event: { type: 'string' }, stage: { type: 'string', default: 'local' } },
  USAGE,
  usageError,
);
const [functionId = usageError('name a function'), ...extra] = positionals;
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

async function readEvent(source = values.event ?? '-'): Promise<string> {
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

// Exactly once: a retried invocation would run the function's side effects twice.
const ONCE = { maxAttempts: 1 };

/** The deployed function the API stack's outputs name. */
async function deployedTarget(deployed: Exclude<StageName, 'local'>) {
  const stackName = apiStackName(deployed);
  const output = functionNameOutput(functionId);
  const functionName = (await readStackOutputs(stackName, deployed))[output];
  if (functionName === undefined) {
    throw new OperatorRefusal(
      `stack ${stackName} has no ${output} output: deploy this version of the service first`,
    );
  }
  return { client: new LambdaClient(ONCE), functionName };
}

/** The running local stage's Invoke API, signed with its credentials. */
async function localTarget() {
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
  const credentials = await readStageCredentials(dataDir);
  if (typeof record.lambdaEndpoint !== 'string' || credentials === undefined) {
    throw new OperatorRefusal(`the local stage on ${dataDir} is of an older version: restart it`);
  }
  const endpoint = record.lambdaEndpoint;
  const client = new LambdaClient({ ...ONCE, endpoint, region: LOCAL_REGION, credentials });
  return { client, functionName: functionId };
}

function refuse(message: string): never {
  process.stderr.write(`invoke: ${message}\n`);
  process.exit(1);
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
let invoked;
try {
  const { client, functionName } = await (stage === 'local'
    ? localTarget()
    : deployedTarget(stage));
  const command = new InvokeCommand({
    FunctionName: functionName,
    Payload: Buffer.from(event),
    LogType: 'Tail',
  });
  invoked = await client.send(command).finally(() => {
    client.destroy();
  });
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
