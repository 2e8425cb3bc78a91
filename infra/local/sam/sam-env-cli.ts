/**
 * `npm run --silent sam:env > env.json`: SAM CLI's `--env-vars` file for the local stage's
 * template, from the running `npm start`, with addresses a container reaches
 * (docs/local-stage.md#sam-cli). `--credentials` prints the stage's credentials as shell
 * exports instead: SAM hands a function the credentials of the shell it runs in.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCommandLine } from '#infra/command-line.ts';
import { apiStackName } from '../../stages.ts';
import {
  AmbiguousDataFolder,
  chooseDataFolder,
  REPOSITORY_ROOT,
  stageHome,
} from '../stage/data-folder.ts';
import { LOCAL_REGION } from '../stage/emulators.ts';
import {
  containerAddress,
  type SamStage,
  samEnvironment,
  SamEnvRefused,
  stageValues,
} from './sam-environment.ts';
import { readStageCredentials } from '../stage-credentials.ts';
import { runningStage } from '../stage/stage-lock.ts';

const DEFAULT_TEMPLATE = join('cdk.out', `${apiStackName('local')}.template.json`);

const USAGE = `usage: npm run --silent sam:env [-- --template <file>] [--host <IP address>] > env.json
       npm run --silent sam:env -- --credentials

SAM CLI's --env-vars file for ${DEFAULT_TEMPLATE} (npx cdk synth -c stage=local), from the
running \`npm start\` (HOST=0.0.0.0) and the settings variables you gave it; exit 2 when no
stage runs, a container could not reach it, or on a usage error (docs/local-stage.md#sam-cli).

  --template <file>  the synthesized template
  --host <address>   the IP address a container reaches this machine by (default: the stage's)
  --credentials      the stage's credentials as shell exports, for the shell that runs sam:
                     eval "$(npm run --silent sam:env -- --credentials)"
`;

function refuse(message: string): never {
  console.error(`sam:env: ${message}`);
  process.exit(2);
}

const { values } = parseCommandLine(
  { template: { type: 'string' }, host: { type: 'string' }, credentials: { type: 'boolean' } },
  USAGE,
  (message) => refuse(`${message}\n\n${USAGE}`),
  { positionals: false },
);

try {
  const choice = await chooseDataFolder(process.env, stageHome(process.env));
  if (choice.notice !== undefined) console.error(`sam:env: ${choice.notice}`);
  const stage: SamStage | undefined = await runningStage(choice.dataDir);
  if (stage === undefined) {
    refuse(
      `no local stage runs on the data folder ${choice.dataDir}: start one with HOST=0.0.0.0 npm start`,
    );
  }
  if (values.credentials === true) {
    const credentials = await readStageCredentials(choice.dataDir);
    if (credentials === undefined) refuse(`${choice.dataDir} holds no credentials`);
    // SAM passes the shell's credentials and region to the function (get_aws_creds); a
    // profile or a session token of the shell would take their place or ride along.
    process.stdout.write(
      [
        'unset AWS_PROFILE AWS_SESSION_TOKEN',
        `export AWS_ACCESS_KEY_ID=${credentials.accessKeyId}`,
        `export AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey}`,
        `export AWS_DEFAULT_REGION=${LOCAL_REGION} AWS_REGION=${LOCAL_REGION}`,
        '',
      ].join('\n'),
    );
    process.exit(0);
  }
  const address = containerAddress(stage, values.host);
  const file = values.template ?? join(REPOSITORY_ROOT, DEFAULT_TEMPLATE);
  let template: unknown;
  try {
    template = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    refuse(
      `cannot read the template ${file} (${error instanceof Error ? error.message : String(error)}): run \`npx cdk synth -c stage=local\` first`,
    );
  }
  const environment = samEnvironment(template, stageValues(stage, address, process.env));
  process.stdout.write(`${JSON.stringify(environment, null, 2)}\n`);
  console.error(
    `sam:env: ${String(Object.keys(environment).length)} functions; run sam with the stage's credentials: eval "$(npm run --silent sam:env -- --credentials)"`,
  );
} catch (error) {
  if (error instanceof SamEnvRefused || error instanceof AmbiguousDataFolder) refuse(error.message);
  throw error;
}
