/**
 * `npm run smoke -- --url <ApiUrl> --token <bearer> [--stage <name>] [--group <g> --deal <d>]
 * [--notify]`: proves a deployed stage works, through its public HTTP API only. Prints a table
 * (step, status, time); exits 0 when every step passed, 1 when one failed, 2 on bad usage.
 */
import { parseCommandLine } from '#infra/command-line.ts';
import { formatResults, runSmokeCheck } from './smoke-check.ts';

const USAGE = `usage: npm run smoke -- --url <ApiUrl> --token <bearer> [--stage <name>]
                        [--group <id> --deal <id>] [--notify]

  --url      the stage's API URL (the ApiUrl output of its API stack)
  --token    a bearer token from the stage's issuer; the check writes and deletes files as its user
  --stage    the stage's name, which room ids start with (default: production)
  --group, --deal
             a deal the user may join: its room's realtime token is checked too
  --notify   also send one real chat message and wait until it is sent (off by default)

The manual: docs/operating.md`;

function usageError(message: string): never {
  process.stderr.write(`npm run smoke: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

const positiveId = (flag: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(value)) usageError(`--${flag} must be a positive integer`);
  return Number(value);
};

const { values: flags } = parseCommandLine(
  {
    url: { type: 'string' },
    token: { type: 'string' },
    stage: { type: 'string', default: 'production' },
    group: { type: 'string' },
    deal: { type: 'string' },
    notify: { type: 'boolean', default: false },
  },
  `${USAGE}\n`,
  usageError,
  { positionals: false },
);
if (flags.url === undefined || !/^https?:\/\/\S+$/.test(flags.url)) {
  usageError('--url must be the http(s) URL of the stage');
}
if (flags.token === undefined || flags.token === '') usageError('--token is required');
const groupId = positiveId('group', flags.group);
const dealId = positiveId('deal', flags.deal);
if ((groupId === undefined) !== (dealId === undefined)) {
  usageError('--group and --deal go together');
}

const results = await runSmokeCheck({
  url: flags.url,
  token: flags.token,
  stage: flags.stage,
  notify: flags.notify,
  ...(groupId === undefined || dealId === undefined ? {} : { deal: { groupId, dealId } }),
});
process.stdout.write(`${formatResults(results)}\n`);
const failed = results.filter((result) => result.status !== 'ok').length;
process.stdout.write(
  failed === 0
    ? `\nall ${String(results.length)} steps passed\n`
    : `\n${String(failed)} of ${String(results.length)} steps did not pass\n`,
);
process.exitCode = failed === 0 ? 0 : 1;
