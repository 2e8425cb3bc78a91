import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { freePort } from '#infra/local/stage/listening.ts';
import { runSmoke, smokeOptions } from '#infra/smoke/smoke.ts';
import { plannedSteps } from '#infra/smoke/smoke-check.ts';
import { startCloudWatchStandIn } from '#test/support/cloudwatch-stand-in.ts';
import { runInProcess } from '#test/support/in-process-cli.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { startTestStage, type TestStage, useTestStage } from '#test/support/test-stage.ts';
import { useWebhookReceiver } from '#test/support/webhook-receiver.ts';

const receiver = useWebhookReceiver();
// Scanning, as every stage does by default: the local scanner stands in for GuardDuty.
const stage = useTestStage(() => ({
  chatWebhookUrl: receiver().url,
  malwareScanning: true,
}));

/** A stage of its own for one test, closed after it whatever happened. */
async function withStage(
  options: Parameters<typeof startTestStage>[0],
  run: (other: TestStage) => Promise<void>,
): Promise<void> {
  const other = await startTestStage(options);
  try {
    await run(other);
  } finally {
    await other.close();
  }
}

interface SmokeRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/**
 * `npm run smoke -- <args>`, as an operator runs it, in a process of its own: its exit code and
 * its output.
 */
function smokeProcess(args: readonly string[]): Promise<SmokeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['infra/smoke/smoke.ts', ...args], {
      cwd: REPOSITORY_ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, out, err });
    });
  });
}

/** The same run in this process (`runSmoke`): what it prints and answers is the process's. */
async function smoke(
  args: readonly string[],
  options?: Parameters<typeof runInProcess>[2],
): Promise<SmokeRun> {
  const { code, stdout, stderr } = await runInProcess(runSmoke, args, options);
  return { code, out: stdout, err: stderr };
}

/**
 * A held download asked again within 200 ms rather than after the stage's `Retry-After: 5`:
 * the local scanner's verdict lands in milliseconds, and five runs here each wait out three.
 */
const RETRY_SOON = ['--retry-after-max', '200'];

/** The detail column of a step's row (the first row of that name). */
const detailOf = (out: string, step: string) =>
  out
    .split('\n')
    .find((line) => line.startsWith(`${step}  `))
    ?.replace(/^.*? {2}(ok|failed|skipped) {2,}(\d+ ms|-) {2,}/, '');

/** Each table row as `step: status`. */
const statuses = (out: string) =>
  out
    .split('\n')
    .slice(1)
    .filter((line) => / {2}(ok|failed|skipped) {2}/.test(line))
    .map((line) => line.replace(/ {2,}(ok|failed|skipped) .*$/, ': $1'));

/**
 * What a smoke run may leave: nothing but its user's usage, counted back to zero once its
 * clean up deleted every file it made (the usage of nothing is no file, no byte, no upload).
 */
function leftBehind(stored: Awaited<ReturnType<TestStage['stored']>>) {
  const zero = (item: Record<string, unknown>) =>
    item.entity === 'Usage' &&
    ['held_files', 'held_bytes', 'reserved_files', 'reserved_bytes'].every((n) => item[n] === 0);
  return { ...stored, items: stored.items.filter((item) => !zero(item)) };
}

/** The local stage's skip lines, each saying why. */
const SKIPPED_BECAUSE: Readonly<Record<string, string>> = {
  'signed form: other bytes, 400 BadDigest':
    "the local object store checks no form's checksum (S3 answers 400 BadDigest): it took the bytes, and the completion refused them (400)",
  'bucket notifications: GuardDuty, finalizer':
    'the local stage has no notification configuration: its object store invokes the finalizer itself',
  'malware protection plan: ACTIVE':
    'the local stage has no GuardDuty: its EICAR-only scanner stands in',
  'digest bucket: Object Lock, COMPLIANCE':
    'the local stage keeps its digests in its one bucket, with no lock (docs/local-stage-limits.md)',
};

/** The steps that take the deal file the copy made: skipped without it. */
const AFTER_THE_COPY = [
  'deal file: download, its trail entry',
  'access trail: sealed, verify clean',
];

type Status = 'ok' | 'failed' | 'skipped';
/** A step's status where a run's case differs from `ok`. */
type StatusOf = (step: string) => Status | undefined;

/** On a working local stage: what it has no stand-in for is skipped. */
const onLocal: StatusOf = (step) => (step in SKIPPED_BECAUSE ? 'skipped' : undefined);

/**
 * Where the stage refuses every call (or every call of the token) but `answered`: each step
 * fails, but a download's comparison, skipped without its upload, and the clean up, which
 * has nothing to delete.
 */
const refusing =
  (answered: readonly string[] = []): StatusOf =>
  (step) =>
    step === 'clean up' || answered.includes(step)
      ? undefined
      : step === 'download it, compare'
        ? 'skipped'
        : 'failed';

/**
 * The rows a run with these arguments shows, as `step: status`: each step the check takes
 * with them, in its order (`plannedSteps`, the check's own code with no step taken), and its
 * status, `ok` unless `statusOf` says otherwise. A new step needs no line here.
 */
async function rowsOf(args: readonly string[], statusOf: StatusOf): Promise<string[]> {
  const io = {
    env: {},
    stdout: { write: () => true },
    stderr: { write: () => true },
    stdin: Readable.from([]),
  };
  const steps = await plannedSteps(smokeOptions(args, io));
  return steps.map((step) => `${step}: ${statusOf(step) ?? 'ok'}`);
}

/** The run's last line for these rows (`summaryOf`'s wording). */
function summaryOfRows(rows: readonly string[]): string {
  const count = (status: Status) => rows.filter((row) => row.endsWith(`: ${status}`)).length;
  const [passed, failed, skipped] = [count('ok'), count('failed'), count('skipped')];
  const total = String(rows.length);
  if (failed > 0) {
    return `${String(failed)} of ${total} steps failed${skipped > 0 ? `, ${String(skipped)} skipped` : ''}`;
  }
  return `${String(passed)} of ${total} steps passed, ${String(skipped)} skipped, none failed`;
}

/** The deal-file copy reads the local stage by its data folder, as the operator CLI does. */
const operatorEnv = (on: TestStage) => ({ env: { LOCAL_DATA_DIR: on.dataDir } });

describe('npm run smoke', () => {
  it('passes against a working stage and leaves nothing behind (as a process)', async () => {
    const before = await stage().stored();
    const token = await stage().token(42);
    const args = ['--url', stage().url, '--token', token, '--stage', 'local', ...RETRY_SOON];
    const run = await smokeProcess(args);
    const rows = await rowsOf(args, onLocal);
    expect(statuses(run.out)).toEqual(rows);
    for (const [step, why] of Object.entries(SKIPPED_BECAUSE)) {
      expect(detailOf(run.out, step)).toBe(why);
    }
    expect(run.out).toContain(summaryOfRows(rows));
    expect(run.code).toBe(0);
    // The EICAR file's download refused for what the scan found, then the file deleted.
    expect(detailOf(run.out, 'EICAR file: held, refused, deleted')).toMatch(
      /^file \d+: (held \(409\) \d+× over \d+ s, then )?403 "[^"]+"; deleted\./,
    );
    expect(leftBehind(await stage().stored())).toEqual(leftBehind(before));
  });

  it('with --metrics, proves the EICAR file counted in ThreatsFound, or fails saying so', async () => {
    const cloudWatch = await startCloudWatchStandIn();
    try {
      const token = await stage().token(42);
      // The SDK reads its endpoint and credentials from the process's environment, as it
      // does in the operator's shell; this file's tests run one at a time in its worker.
      vi.stubEnv('AWS_ENDPOINT_URL_CLOUDWATCH', cloudWatch.endpoint);
      vi.stubEnv('AWS_REGION', 'eu-west-1');
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDSMOKE');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'smoke');
      const args = [
        ...['--url', stage().url, '--token', token, '--stage', 'local', '--metrics'],
        ...RETRY_SOON,
      ];
      cloudWatch.sum = 1;
      const counted = await smoke(args);
      const rows = await rowsOf(args, onLocal);
      // Counted right after the EICAR file's step.
      expect(rows.indexOf('ThreatsFound counted: ok')).toBe(
        rows.indexOf('EICAR file: held, refused, deleted: ok') + 1,
      );
      expect(statuses(counted.out)).toEqual(rows);
      expect(cloudWatch.requests[0]).toMatchObject({
        Namespace: 'FileService/local',
        MetricName: 'ThreatsFound',
        Dimensions: [{ Name: 'service', Value: 'file-service' }],
        Period: 60,
        Statistics: ['Sum'],
      });
      cloudWatch.sum = 0;
      const missed = await smoke([...args, '--metrics-wait', '1']);
      expect(detailOf(missed.out, 'ThreatsFound counted')).toBe(
        'no ThreatsFound data point within 1 s: is the verdict function recording (its log, the ScanEventFailures queue)?',
      );
      expect(missed.code).toBe(1);
    } finally {
      vi.unstubAllEnvs();
      await cloudWatch.close();
    }
  });

  it('fails, exit 1, on a stage that does not scan: the EICAR file is handed out', async () => {
    await withStage({ malwareScanning: false }, async (unscanned) => {
      const before = await unscanned.stored();
      const token = await unscanned.token(42);
      const args = ['--url', unscanned.url, '--token', token, '--stage', 'local'];
      const run = await smoke(args);
      expect(statuses(run.out)).toEqual(
        await rowsOf(args, (step) => (step.startsWith('EICAR') ? 'failed' : onLocal(step))),
      );
      expect(detailOf(run.out, 'EICAR file: held, refused, deleted')).toBe(
        "the EICAR test file's download was not refused (302): does the stage scan (malwareScanning)?",
      );
      expect(run.code).toBe(1);
      // The clean up deleted it.
      expect(leftBehind(await unscanned.stored())).toEqual(leftBehind(before));
    });
  });

  it('fails, exit 1, within --scan-wait when no verdict comes (the downloads stay held), and where a store takes other bytes than the declared SHA-256', async () => {
    // A verdict ten minutes away: no file of this stage is cleared during the test. Named as a
    // deployed stage, whose S3 must refuse them, the local store fails the signed-form step.
    await withStage({ malwareScanning: true, scanner: { delayMs: 600_000 } }, async (slow) => {
      const before = await slow.stored();
      const token = await slow.token(42);
      const args = [
        ...['--url', slow.url, '--token', token, '--stage', 'development', '--http-only'],
        ...['--scan-wait', '1'],
      ];
      const run = await smoke(args);
      const failing = [
        'download it, compare',
        'signed form: other bytes, 400 BadDigest',
        'EICAR file: held, refused, deleted',
      ];
      const rows = await rowsOf(args, (step) => (failing.includes(step) ? 'failed' : undefined));
      expect(statuses(run.out)).toEqual(rows);
      const held =
        /^download: still held \(409\) after \d+ s, the scan's wait: \{"detail":"[^"]+"\}$/;
      expect(detailOf(run.out, 'download it, compare')).toMatch(held);
      expect(detailOf(run.out, 'EICAR file: held, refused, deleted')).toMatch(held);
      expect(detailOf(run.out, 'signed form: other bytes, 400 BadDigest')).toBe(
        'the signed form took other bytes than its x-amz-checksum-sha256 (204), expected 400 BadDigest; the completion then answered 400',
      );
      expect(run.out).toContain(summaryOfRows(rows));
      expect(run.code).toBe(1);
      expect(leftBehind(await slow.stored())).toEqual(leftBehind(before));
    });
  });

  it('checks the deal room’s token, copies a deal file as the operator, and sends one chat message when asked', async () => {
    await seedDeals(stage(), {
      groups: [7],
      members: [{ groupId: 7, userId: 43, role: 'editor' }],
      deals: [{ groupId: 7, dealId: 3 }],
    });
    const before = await stage().stored();
    const token = await stage().token(43);
    const args = [
      ...['--url', stage().url, '--token', token, '--stage', 'local'],
      ...['--group', '7', '--deal', '3', '--notify'],
      ...RETRY_SOON,
    ];
    const run = await smoke(args, operatorEnv(stage()));
    const rows = await rowsOf(args, onLocal);
    for (const step of ['realtime token, deal room', 'deal-file copy (operator)', 'notify, sent']) {
      expect(rows).toContain(`${step}: ok`);
    }
    expect(statuses(run.out)).toEqual(rows);
    expect(run.out).toContain('local:v1:group:7:deal:3, verified');
    expect(detailOf(run.out, 'deal-file copy (operator)')).toMatch(
      /^deal file (\d+) of deal 3, copied from file \d+$/,
    );
    expect(detailOf(run.out, 'clean up')).toMatch(/^deleted deal file \d+, \d+/);
    expect(run.code).toBe(0);
    expect(receiver().posts).toHaveLength(1);
    // The files are gone; the notification's record stays, as every notification's does.
    const after = await stage().stored();
    expect(after.objects).toEqual(before.objects);
    expect(after.items.filter((item) => String(item.SK).startsWith('FILE#'))).toEqual(
      before.items.filter((item) => String(item.SK).startsWith('FILE#')),
    );
  });

  it('fails the deal-file copy, exit 1, for a viewer, saying how to fix it; no EICAR file with --malware-scanning off', async () => {
    await seedDeals(stage(), {
      groups: [8],
      members: [{ groupId: 8, userId: 44, role: 'viewer' }],
      deals: [{ groupId: 8, dealId: 5 }],
    });
    const before = await stage().stored();
    const token = await stage().token(44);
    const args = [
      ...['--url', stage().url, '--token', token, '--stage', 'local'],
      ...['--group', '8', '--deal', '5', '--malware-scanning', 'off'],
      ...RETRY_SOON,
    ];
    const run = await smoke(args, operatorEnv(stage()));
    const rows = await rowsOf(args, (step) =>
      step === 'deal-file copy (operator)'
        ? 'failed'
        : AFTER_THE_COPY.includes(step)
          ? 'skipped'
          : onLocal(step),
    );
    expect(rows.some((row) => row.startsWith('EICAR'))).toBe(false);
    expect(statuses(run.out)).toEqual(rows);
    expect(detailOf(run.out, 'deal-file copy (operator)')).toBe(
      'user 44 is a viewer of group 8, and the clean up deletes the deal file as them: make them an editor (npm run --silent admin -- member add --group 8 --user 44 --role editor --stage local)',
    );
    expect(run.out).toContain(summaryOfRows(rows));
    expect(run.code).toBe(1);
    expect(leftBehind(await stage().stored())).toEqual(leftBehind(before));
  });

  it('fails, exit 1, with a token the stage does not accept', async () => {
    const args = ['--url', stage().url, '--token', 'not-a-token', '--http-only'];
    const run = await smoke(args);
    // The public steps pass without a token.
    const rows = await rowsOf(args, refusing(['GET /openapi.json', 'no token: 401']));
    expect(statuses(run.out)).toEqual(rows);
    expect(run.out).toContain('list: 401 {"message":"Unauthorized"} (expected 200)');
    expect(run.out).toContain(summaryOfRows(rows));
    expect(run.code).toBe(1);
  });

  it('fails, exit 1, where nothing answers (without the EICAR step with --skip-eicar)', async () => {
    const port = await freePort();
    const args = [
      ...['--url', `http://127.0.0.1:${String(port)}`, '--token', 'x', '--http-only'],
      '--skip-eicar',
    ];
    const run = await smoke(args);
    expect(statuses(run.out)).toEqual(await rowsOf(args, refusing()));
    expect(run.out).not.toContain('EICAR');
    expect(run.out).toContain('ECONNREFUSED');
    expect(run.code).toBe(1);
  });

  it('fails, exit 1, against a stage answering 5xx', async () => {
    const broken: Server = createServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"message":"Internal Server Error"}');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = broken.address() as AddressInfo;
      const args = ['--url', `http://127.0.0.1:${String(port)}`, '--token', 'x', '--http-only'];
      const run = await smoke(args);
      expect(run.out).toContain(
        'openapi.json: 500 {"message":"Internal Server Error"} (expected 200)',
      );
      expect(statuses(run.out)).toEqual(await rowsOf(args, refusing()));
      expect(run.code).toBe(1);
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });

  it('prints its usage with --help, and exits 2 on bad usage, saying what is wrong', async () => {
    const help = await smoke(['--help']);
    expect(help.out).toMatch(/^usage: npm run smoke -- --url <ApiUrl> --token <bearer>/);
    // What an operator needs before a first run: the token, the deal, the EICAR file's alarm.
    expect(help.out).toContain('pre token generation trigger');
    expect(help.out).toContain('member add --group <id> --user <id> --role editor');
    expect(help.out).toContain("That fires the stage's ThreatsFound alarm");
    expect(help.code).toBe(0);
    const run = await smoke(['--token', 'x']);
    expect(run.err).toContain('npm run smoke: --url must be the http(s) URL of the stage');
    expect(run.out).toBe('');
    expect(run.code).toBe(2);
    const half = await smoke(['--url', 'http://127.0.0.1:1', '--token', 'x', '--group', '7']);
    expect(half.err).toContain('--group and --deal go together');
    expect(half.code).toBe(2);
    const scanning = await smoke([
      ...['--url', 'http://127.0.0.1:1', '--token', 'x', '--malware-scanning', 'maybe'],
    ]);
    expect(scanning.err).toContain('--malware-scanning must be on or off');
    expect(scanning.code).toBe(2);
    const wait = await smoke(['--url', 'http://127.0.0.1:1', '--token', 'x', '--scan-wait', '0']);
    expect(wait.err).toContain('--scan-wait must be whole seconds, 1 to 99999');
    expect(wait.code).toBe(2);
    const retry = await smoke([
      ...['--url', 'http://127.0.0.1:1', '--token', 'x', '--retry-after-max', '0.5'],
    ]);
    expect(retry.err).toContain('--retry-after-max must be whole milliseconds, 1 to 99999');
    expect(retry.code).toBe(2);
    const stageName = await smoke([
      '--url',
      'http://127.0.0.1:1',
      '--token',
      'x',
      '--stage',
      'dev',
    ]);
    expect(stageName.err).toContain('--stage must be production, development, local');
    expect(stageName.code).toBe(2);
    const metrics = await smoke([
      ...['--url', 'http://127.0.0.1:1', '--token', 'x', '--metrics', '--skip-eicar'],
    ]);
    expect(metrics.err).toContain('--metrics counts the EICAR file, which --skip-eicar leaves out');
    expect(metrics.code).toBe(2);
  });
});
