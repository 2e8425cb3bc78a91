/**
 * `npm run smoke -- --url <ApiUrl> --token <bearer> [--stage <name>] [--group <g> --deal <d>]
 * [--notify] [--malware-scanning on|off] [--scan-wait <seconds>] [--retry-after-max <ms>] [--metrics [--metrics-wait <seconds>]]`: proves a deployed stage
 * works, through its public HTTP API only. Prints a table (step, status, time); exits 0 when
 * every step passed, 1 when one failed, 2 on bad usage.
 */
import { parseCommandLine } from '#infra/command-line.ts';
import { CloudWatchClient, GetMetricStatisticsCommand } from '@aws-sdk/client-cloudwatch';
import { metricsNamespace, SERVICE_NAME } from '#shared/observability/business-metrics.ts';
import { formatResults, runSmokeCheck } from './smoke-check.ts';

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
                        [--group <id> --deal <id>] [--notify]
                        [--malware-scanning on|off] [--scan-wait <seconds>]
                        [--retry-after-max <ms>]
                        [--metrics [--metrics-wait <seconds>]]

  --url      the stage's API URL (the ApiUrl output of its API stack)
  --token    a bearer token from the stage's issuer; the check writes and deletes files as its user
  --stage    the stage's name, which room ids start with (default: production)
  --group, --deal
             a deal the user may join: its room's realtime token is checked too
  --notify   also send one real chat message and wait until it is sent (off by default)
  --malware-scanning
             the stage's malwareScanning setting (default: on): when on, a file holding the
             EICAR test string is uploaded, its download must be refused, and it is deleted
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
    'malware-scanning': { type: 'string', default: 'on' },
    'scan-wait': { type: 'string', default: '300' },
    'retry-after-max': { type: 'string', default: '10000' },
    metrics: { type: 'boolean', default: false },
    'metrics-wait': { type: 'string', default: '300' },
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
const scanning = flags['malware-scanning'];
if (scanning !== 'on' && scanning !== 'off') usageError('--malware-scanning must be on or off');
const scanWait = flags['scan-wait'];
if (!/^[1-9][0-9]{0,4}$/.test(scanWait)) {
  usageError('--scan-wait must be whole seconds, 1 to 99999');
}
const retryAfterMax = flags['retry-after-max'];
if (!/^[1-9][0-9]{0,4}$/.test(retryAfterMax)) {
  usageError('--retry-after-max must be whole milliseconds, 1 to 99999');
}

const metricsWait = flags['metrics-wait'];
if (!/^[1-9][0-9]{0,4}$/.test(metricsWait)) {
  usageError('--metrics-wait must be whole seconds, 1 to 99999');
}

const results = await runSmokeCheck({
  url: flags.url,
  token: flags.token,
  stage: flags.stage,
  notify: flags.notify,
  malwareScanning: scanning === 'on',
  scanWaitMs: Number(scanWait) * 1000,
  retryAfterMaxMs: Number(retryAfterMax),
  ...(flags.metrics
    ? {
        threatsCountedSince: threatsCounted(flags.stage),
        metricsWaitMs: Number(metricsWait) * 1000,
      }
    : {}),
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
