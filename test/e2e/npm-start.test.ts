import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '#infra/local/free-port.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/emulators.ts';
import { LOCAL_TABLE } from '#infra/local/local-stage.ts';
import { REPOSITORY_ROOT } from '#infra/local/paths.ts';
import { registerRunningStage } from '#infra/local/data-folder.ts';
import { readStageRecord, stageRecordPath } from '#infra/local/stage-lock.ts';
import { toUserFileItem } from '#shared/adapters/items/file-items.ts';
import { undocumented } from '#test/support/contract-check.ts';
import { patient } from '#test/support/patience.ts';

const run = promisify(execFile);

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** The exit code, or the signal that ended npm itself. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
}

/** How long one `npm start` may take to come up: seconds when idle, far more on a busy machine. */
const STARTS_WITHIN = patient(120_000);

/**
 * `npm start` as a developer runs it: its own process group, as a terminal gives it. It and
 * every CLI here share this file's LOCAL_STAGE_HOME, in place of the checkout's `.data/`: they
 * register and look for running stages there alone, so a developer's `npm start` in this
 * checkout, or another test run's, is never found, and never finds this one.
 */
function npmStart(env: Record<string, string>): Started {
  const child = spawn('npm', ['start'], {
    cwd: REPOSITORY_ROOT,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'INFO', LOCAL_STAGE_HOME: home, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(code ?? signal);
    });
  });
  const started = { child, output: () => output, exited };
  starts.push(started);
  return started;
}

/** Every start of this file: one a failed test left running is stopped after it. */
const starts: Started[] = [];

async function waitFor(started: Started, text: string, ms = STARTS_WITHIN): Promise<void> {
  const deadline = Date.now() + ms;
  while (!started.output().includes(text)) {
    if (started.child.exitCode !== null) throw new Error(`npm start exited:\n${started.output()}`);
    if (Date.now() > deadline)
      throw new Error(`no "${text}" within ${ms} ms:\n${started.output()}`);
    await new Promise((resolve) => {
      setTimeout(resolve, 50);
    });
  }
}

/** Ctrl-C: SIGINT to the whole foreground process group. */
async function ctrlC(started: Started): Promise<number | NodeJS.Signals | null> {
  if (started.child.pid !== undefined) process.kill(-started.child.pid, 'SIGINT');
  return started.exited;
}

/** Running, and not a zombie waiting for a parent that may never reap it. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Processes whose command line names the data folder: what Ctrl-C must leave none of. */
function processesUsing(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

let root: string;
/** This file's LOCAL_STAGE_HOME: where its stages register, and its default data folder. */
let home: string;
let dataDir: string;
let port: number;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-service-npm-start-'));
  home = join(root, 'home');
  dataDir = join(root, 'data');
  port = await freePort();
});
afterEach(async () => {
  for (const { child, exited } of starts.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    // Ctrl-C, which stops its DynamoDB Local too; if that does not end it, kill -9.
    const group = -child.pid;
    process.kill(group, 'SIGINT');
    const timer = setTimeout(() => {
      process.kill(group, 'SIGKILL');
    }, patient(30_000));
    await exited;
    clearTimeout(timer);
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * Another stage, running and registered under another LOCAL_STAGE_HOME, as another test run's
 * (or a developer's) would be: its record names this live process. Returns its undoing.
 */
async function stageElsewhere(): Promise<() => Promise<void>> {
  const elsewhere = join(root, 'elsewhere');
  const otherData = join(elsewhere, 'data');
  await mkdir(otherData, { recursive: true });
  const url = 'http://localhost:1';
  await writeFile(stageRecordPath(otherData), JSON.stringify({ pid: process.pid, url }));
  return registerRunningStage(join(elsewhere, 'home'), {
    pid: process.pid,
    url,
    dataDir: otherData,
  });
}

// Up to three starts in one test.
describe('npm start', { timeout: 3 * STARTS_WITHIN }, () => {
  it('serves the local stage, keeps data across restarts, and stops clean on Ctrl-C', async () => {
    const env = { PORT: String(port), LOCAL_DATA_DIR: dataDir };
    const first = npmStart(env);
    await waitFor(first, 'Ctrl-C stops it.');
    const banner = first.output();
    const url = `http://localhost:${port}`;
    expect(banner).toContain(`up on ${url}`);
    expect(banner).toMatch(/Demo token for user 1[^\n]*\n {2}eyJ[\w-]+\.[\w-]+\.[\w-]+\n/);
    expect(banner).toContain(`curl -H "Authorization: Bearer eyJ`);
    expect(banner).toContain(`${url}/api/v1/user/me/file`);

    // The token CLI prints only a token, while the stage runs. LOCAL_DATA_DIR was set for
    // `npm start` alone: the CLI finds the stage by its registration under their shared
    // LOCAL_STAGE_HOME, and says so; a stage registered under another home is not seen.
    const { LOCAL_DATA_DIR: _unset, ...withoutDataDir } = process.env;
    const unregisterElsewhere = await stageElsewhere();
    const { stdout, stderr } = await run(
      process.execPath,
      [join(REPOSITORY_ROOT, 'infra/local/token-cli.ts'), '--user', '1'],
      { cwd: REPOSITORY_ROOT, env: { ...withoutDataDir, LOCAL_STAGE_HOME: home } },
    ).finally(unregisterElsewhere);
    expect(stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(stderr.replace(/^npm warn .*\n/gm, '')).toBe(
      `token: using the running local stage at ${url} (data folder ${dataDir})\n`,
    );
    const token = stdout.trim();

    const record = await readStageRecord(dataDir);
    expect(record?.pid).toBeGreaterThan(0);
    const dynamodb = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: record?.dynamodbEndpoint,
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
      }),
    );
    await dynamodb.send(
      new PutCommand({
        TableName: LOCAL_TABLE,
        Item: toUserFileItem({
          id: 1,
          userId: 1,
          name: 'kept.pdf',
          type: 'deck',
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: null,
          isArchived: false,
          filesize: 3,
          location: 'users/1/files/1',
        }),
      }),
    );
    dynamodb.destroy();

    const listed = await fetch(`${url}/api/v1/user/me/file`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.status).toBe(200);
    expect(await undocumented('GET', listed)).toEqual([]);
    expect(((await listed.json()) as { name: string }[]).map((f) => f.name)).toEqual(['kept.pdf']);

    // With no CHAT_WEBHOOK_URL, a notify call's message is printed and kept in chat.jsonl.
    const notified = await fetch(`${url}/api/v1/user/me/file/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ file_ids: [1], fund_name: 'Local Fund' }),
    });
    expect(notified.status).toBe(202);
    expect(await undocumented('POST', notified)).toEqual([]);
    await waitFor(first, '[chat] == New submission ==');
    expect(first.output()).toContain('[chat] • *kept.pdf*  ·  Deck  ·  3 bytes');
    const chatLines = (await readFile(join(dataDir, 'chat.jsonl'), 'utf8')).trim().split('\n');
    expect(chatLines).toHaveLength(1);
    expect(JSON.parse(chatLines[0] ?? '')).toMatchObject({
      text: 'User 1 submitted 1 file for Local Fund',
      blocks: expect.any(Array) as unknown[],
    });

    // Structured logs carry API Gateway's request id, as the response does.
    const requestId = listed.headers.get('apigw-requestid') ?? '';
    await waitFor(first, `"correlation_id":"${requestId}"`, patient(20_000));
    const logLine = first
      .output()
      .split('\n')
      .find((line) => line.includes(`"correlation_id":"${requestId}"`));
    // The JSON from its first brace: the console may put the function's name before it.
    expect(JSON.parse(logLine?.slice(logLine.indexOf('{')) ?? '{}')).toMatchObject({
      level: 'INFO',
      service: 'file-service',
      function_name: 'ListUserFiles',
      correlation_id: requestId,
      status: 200,
    });

    // A second start on the same port says so and exits non-zero, leaving the first alone.
    const second = npmStart(env);
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(`port ${port} is already in use`);
    const refused = await fetch(`${url}/api/v1/user/me/file`);
    expect(refused.status).toBe(401);
    expect(await undocumented('GET', refused)).toEqual([]);

    // npm itself may end by the signal; the stage below it must stop on its own terms.
    expect([0, 'SIGINT']).toContain(await ctrlC(first));
    expect(first.output()).toContain('Stopped.');
    expect(alive(record?.pid ?? 0)).toBe(false);
    expect(alive(record?.dynamodbPid ?? 0)).toBe(false);
    expect(processesUsing(dataDir)).toEqual([]);
    await expect(readFile(join(dataDir, 'local-stage.json'))).rejects.toThrow();

    // The data folder outlives the process.
    const again = npmStart(env);
    await waitFor(again, 'Ctrl-C stops it.');
    const relisted = await fetch(`${url}/api/v1/user/me/file`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await relisted.json()) as { name: string }[]).map((f) => f.name)).toEqual([
      'kept.pdf',
    ]);
    expect([0, 'SIGINT']).toContain(await ctrlC(again));
    expect(again.output()).toContain('Stopped.');
    expect(processesUsing(dataDir)).toEqual([]);
  });

  it('stops the DynamoDB Local a start killed outright (kill -9) left behind', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'file-service-orphan-'));
    const env = { PORT: String(await freePort()), LOCAL_DATA_DIR: folder };
    try {
      const killed = npmStart(env);
      await waitFor(killed, 'Ctrl-C stops it.');
      const record = await readStageRecord(folder);
      const orphan = record?.dynamodbPid ?? 0;
      process.kill(record?.pid ?? 0, 'SIGKILL');
      await killed.exited;
      expect(alive(orphan)).toBe(true);

      const next = npmStart(env);
      await waitFor(next, 'Ctrl-C stops it.');
      expect(alive(orphan)).toBe(false);
      expect([0, 'SIGINT']).toContain(await ctrlC(next));
      expect(processesUsing(folder)).toEqual([]);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('refuses a PORT that is taken by anything, with a clear message', async () => {
    const blocker = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const started = npmStart({ PORT: String(taken), LOCAL_DATA_DIR: dataDir });
      expect(await started.exited).toBe(1);
      expect(started.output()).toContain(`npm start: port ${taken} is already in use`);
    } finally {
      blocker.close();
    }
  });
});
