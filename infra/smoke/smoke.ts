/**
 * `npm run smoke -- --url <ApiUrl> --token <bearer> [--stage <name>] [--group <g> --deal <d>]
 * [--notify] [--http-only] [--malware-scanning on|off] [--skip-eicar] [--scan-wait <seconds>]
 * [--retry-after-max <ms>] [--metrics [--metrics-wait <seconds>]]`: proves a deployed stage
 * works, through its public HTTP API and (unless --http-only) what its stacks hold. Prints a
 * table (step, status, time); exits 0 when no step failed, 1 when one did, 2 on bad usage.
 */
import { type CommandLineIo, exitCodeOf, exitWith, parseCommandLine } from '#infra/command-line.ts';
import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { metricsNamespace, SERVICE_NAME } from '#shared/observability/business-metrics.ts';
import { STAGE_NAMES, type StageName } from '#infra/stages.ts';
import { formatResults, runSmokeCheck, summaryOf } from './smoke-check.ts';
import type { SmokeOptions } from './smoke-run.ts';

/** The stage's ThreatsFound data points since a time, summed: what its alarm watches. */
const threatsCounted =
  (stage: string) =>
  async (since: Date): Promise<number> => {
    const cloudWatch = new CloudWatchClient({});
    try {
      const { Datapoints = [] } = await cloudWatch.send(
        new GetMetricStatisticsCommand({
          Namespace: metricsNamespace(stage),
          MetricName: 'ThreatsFound',
          Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
          StartTime: since,
          EndTime: new Date(Date.now() + 60_000),
          Period: 60,
          Statistics: ['Sum'],
        }),
      );
      return Datapoints.reduce((sum, point) => sum + (point.Sum ?? 0), 0);
    } finally {
      cloudWatch.destroy();
    }
  };

const USAGE = `usage: npm run smoke -- --url <ApiUrl> --token <bearer> [--stage <name>]
                        [--group <id> --deal <id>] [--notify] [--http-only]
                        [--malware-scanning on|off] [--skip-eicar] [--scan-wait <seconds>]
                        [--retry-after-max <ms>]
                        [--metrics [--metrics-wait <seconds>]]

  --url      the stage's API URL (the ApiUrl output of its API stack)
  --token    a bearer token from the stage's issuer for a test user (not a customer): the
             check writes and deletes files as them. Its userIdClaim claim (sub by default)
             must hold the user's numeric id; with Cognito, a custom attribute holding the id
             and a pre token generation trigger putting it in that claim (docs/deploying.md,
             "The user id claim")
  --stage    production (default), development or local: room ids start with it, and the
             steps that read the stage find its stacks by it
  --group, --deal
             a deal whose group the token's user is an editor of: its room's token is checked,
             and a deal file is copied to it (as the operator CLI does), downloaded (its entry
             found in the deal's access trail, then sealed by the stage's sealer, a few
             minutes' wait, and access verify clean) and deleted again.
             Make them first with the operator CLI (add --stage <stage>):
               npm run --silent admin -- group add --group <id> --name "Smoke check"
               npm run --silent admin -- deal add --group <id> --deal <id> --name "Smoke check"
               npm run --silent admin -- member add --group <id> --user <id> --role editor
  --notify   also send one real chat message and wait until it is sent (off by default)
  --http-only
             leave out the steps that read the stage with your AWS credentials and region
             (its bucket's notifications, its malware protection plan, the deal-file copy,
             the access trail's seal and its digest bucket's lock):
             the token alone is then enough
  --malware-scanning
             the stage's malwareScanning setting (default: on): when on, a file holding the
             EICAR test string is uploaded, its download must be refused, and it is deleted.
             That fires the stage's ThreatsFound alarm, which pages whoever it reaches
  --skip-eicar
             leave the EICAR file out, so that ThreatsFound stays quiet (nothing then proves
             that an infected file is held); or run it with the alarm's actions disabled
             (docs/operating.md, "The EICAR step and its alarm")
  --scan-wait
             how long a download may stay held while its scan is under way (default: 300)
  --retry-after-max
             the longest wait before a held download is asked again: its Retry-After, at
             most this many milliseconds (default: 10000)
  --metrics  also read the stage's ThreatsFound metric in CloudWatch, with your AWS
             credentials and region: the EICAR file must be counted (what its alarm watches)
  --metrics-wait
             how long that count may take to show (default: 300)

The manual: docs/operating.md`;

/**
 * The smoke check's run: 0 when no step failed, 1 when one did, 2 on bad usage. A deployed
 * stage's stacks (unless --http-only) and CloudWatch (with --metrics) are read with the
 * process's own AWS credentials and region; the local stage is found by the data folder
 * `io.env` names, as the operator CLI finds it.
 */
export function runSmoke(args: readonly string[], io: CommandLineIo): Promise<number> {
  return exitCodeOf(async () => {
    const results = await runSmokeCheck(smokeOptions(args, io));
    io.stdout.write(`${formatResults(results)}\n\n${summaryOf(results)}\n`);
    return results.some((result) => result.status === 'failed') ? 1 : 0;
  });
}

/** What the command line asks the check for; a usage error ends the run with 2. */
export function smokeOptions(args: readonly string[], io: CommandLineIo): SmokeOptions {
  const usageError = (message: string) => exitWith(io, `npm run smoke: ${message}\n\n${USAGE}\n`);
  const positiveId = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    if (!/^[1-9][0-9]{0,15}$/.test(value)) usageError(`--${flag} must be a positive integer`);
    return Number(value);
  };
  /** A flag of whole units, 1 to 99999. */
  const whole = (flag: string, value: string, units: string): number => {
    if (!/^[1-9][0-9]{0,4}$/.test(value))
      usageError(`--${flag} must be whole ${units}, 1 to 99999`);
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
      'http-only': { type: 'boolean', default: false },
      'malware-scanning': { type: 'string', default: 'on' },
      'skip-eicar': { type: 'boolean', default: false },
      'scan-wait': { type: 'string', default: '300' },
      'retry-after-max': { type: 'string', default: '10000' },
      metrics: { type: 'boolean', default: false },
      'metrics-wait': { type: 'string', default: '300' },
    },
    `${USAGE}\n`,
    usageError,
    { args, io, positionals: false },
  );
  const url = flags.url ?? '';
  if (!/^https?:\/\/\S+$/.test(url)) usageError('--url must be the http(s) URL of the stage');
  const token = flags.token ?? '';
  if (token === '') usageError('--token is required');
  const stage = flags.stage as StageName;
  if (!STAGE_NAMES.includes(stage)) usageError(`--stage must be ${STAGE_NAMES.join(', ')}`);
  const groupId = positiveId('group', flags.group);
  const dealId = positiveId('deal', flags.deal);
  if ((groupId === undefined) !== (dealId === undefined)) {
    usageError('--group and --deal go together');
  }
  const scanning = flags['malware-scanning'];
  if (scanning !== 'on' && scanning !== 'off') usageError('--malware-scanning must be on or off');
  const scanWait = whole('scan-wait', flags['scan-wait'], 'seconds');
  const retryAfterMax = whole('retry-after-max', flags['retry-after-max'], 'milliseconds');
  const metricsWait = whole('metrics-wait', flags['metrics-wait'], 'seconds');
  if (flags.metrics && flags['skip-eicar']) {
    usageError('--metrics counts the EICAR file, which --skip-eicar leaves out');
  }
  return {
    url,
    token,
    stage,
    notify: flags.notify,
    ...(flags['http-only'] ? {} : { operatorEnv: io.env }),
    malwareScanning: scanning === 'on',
    skipEicar: flags['skip-eicar'],
    scanWaitMs: scanWait * 1000,
    retryAfterMaxMs: retryAfterMax,
    ...(flags.metrics
      ? { threatsCountedSince: threatsCounted(stage), metricsWaitMs: metricsWait * 1000 }
      : {}),
    ...(groupId === undefined || dealId === undefined ? {} : { deal: { groupId, dealId } }),
  };
}

if (import.meta.main) process.exitCode = await runSmoke(process.argv.slice(2), process);
