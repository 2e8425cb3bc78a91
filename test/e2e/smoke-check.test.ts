import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/paths.ts';
import { freePort } from '#infra/local/free-port.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { useWebhookReceiver } from '#test/support/webhook-receiver.ts';

const receiver = useWebhookReceiver();
const stage = useTestStage(() => ({ notifications: { chatWebhookUrl: receiver().url } }));

/** `npm run smoke -- <args>`, as an operator runs it: its exit code and its output. */
function smoke(
  args: readonly string[],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['infra/smoke/smoke.ts', ...args], {
      cwd: REPOSITORY_ROOT,
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

/** Each table row as `step: status`. */
const statuses = (out: string) =>
  out
    .split('\n')
    .slice(1)
    .filter((line) => / {2}(ok|failed|skipped) {2}/.test(line))
    .map((line) => line.replace(/ {2,}(ok|failed|skipped) .*$/, ': $1'));

const PASSED = [
  'GET /openapi.json: ok',
  'no token: 401: ok',
  'list files: ok',
  'multipart upload: ok',
  'download it, compare: ok',
  'direct upload, complete: ok',
  'download it, compare: ok',
  'realtime token, no rooms: ok',
];

describe('npm run smoke', () => {
  it('passes against a working stage and leaves nothing behind', async () => {
    const before = await stage().stored();
    const token = await stage().token(42);
    const run = await smoke(['--url', stage().url, '--token', token, '--stage', 'local']);
    expect(statuses(run.out)).toEqual([...PASSED, 'clean up: ok']);
    expect(run.out).toContain('all 9 steps passed');
    expect(run.code).toBe(0);
    expect(await stage().stored()).toEqual(before);
  });

  it('checks the deal room’s token and sends one chat message when asked', async () => {
    await seedDeals(stage(), {
      groups: [7],
      members: [{ groupId: 7, userId: 43, role: 'viewer' }],
      deals: [{ groupId: 7, dealId: 3 }],
    });
    const before = await stage().stored();
    const token = await stage().token(43);
    const run = await smoke([
      ...['--url', stage().url, '--token', token, '--stage', 'local'],
      ...['--group', '7', '--deal', '3', '--notify'],
    ]);
    expect(statuses(run.out)).toEqual([
      ...PASSED,
      'realtime token, deal room: ok',
      'notify, sent: ok',
      'clean up: ok',
    ]);
    expect(run.out).toContain('local:v1:group:7:deal:3, verified');
    expect(run.code).toBe(0);
    expect(receiver().posts).toHaveLength(1);
    // The files are gone; the notification's record stays, as every notification's does.
    const after = await stage().stored();
    expect(after.objects).toEqual(before.objects);
    expect(after.items.filter((item) => String(item.SK).startsWith('FILE#'))).toEqual(
      before.items.filter((item) => String(item.SK).startsWith('FILE#')),
    );
  });

  it('fails, exit 1, with a token the stage does not accept', async () => {
    const run = await smoke(['--url', stage().url, '--token', 'not-a-token']);
    expect(statuses(run.out)).toEqual([
      'GET /openapi.json: ok',
      'no token: 401: ok',
      'list files: failed',
      'multipart upload: failed',
      'download it, compare: skipped',
      'direct upload, complete: failed',
      'download it, compare: skipped',
      'realtime token, no rooms: failed',
      'clean up: ok',
    ]);
    expect(run.out).toContain('list: 401 {"message":"Unauthorized"} (expected 200)');
    expect(run.out).toContain('6 of 9 steps did not pass');
    expect(run.code).toBe(1);
  });

  it('fails, exit 1, where nothing answers', async () => {
    const port = await freePort();
    const run = await smoke(['--url', `http://127.0.0.1:${String(port)}`, '--token', 'x']);
    expect(statuses(run.out).filter((row) => row.endsWith(': failed'))).toHaveLength(6);
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
      const run = await smoke(['--url', `http://127.0.0.1:${String(port)}`, '--token', 'x']);
      expect(run.out).toContain(
        'openapi.json: 500 {"message":"Internal Server Error"} (expected 200)',
      );
      expect(statuses(run.out).filter((row) => row.endsWith(': failed'))).toHaveLength(6);
      expect(run.code).toBe(1);
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  });

  it('prints its usage with --help, and exits 2 on bad usage, saying what is wrong', async () => {
    const help = await smoke(['--help']);
    expect(help.out).toMatch(/^usage: npm run smoke -- --url <ApiUrl> --token <bearer>/);
    expect(help.code).toBe(0);
    const run = await smoke(['--token', 'x']);
    expect(run.err).toContain('npm run smoke: --url must be the http(s) URL of the stage');
    expect(run.out).toBe('');
    expect(run.code).toBe(2);
    const half = await smoke(['--url', 'http://127.0.0.1:1', '--token', 'x', '--group', '7']);
    expect(half.err).toContain('--group and --deal go together');
    expect(half.code).toBe(2);
  });
});
