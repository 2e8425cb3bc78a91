/**
 * `npm start` as a developer runs it, start to Ctrl-C: the banner, the token CLI, data kept
 * across restarts, refusals of a taken port, and the console a person reads (one line per
 * request naming the function that answered, what a function writes under its own name, and
 * INFO lines only when LOG_LEVEL asks). Each start costs seconds of CPU, so the tests of one
 * start share it and run in order.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '#infra/local/stage/listening.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { readStageRecord, type StageRecord } from '#infra/local/stage/stage-lock.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { undocumented } from '#test/support/contract-check.ts';
import type { DirectUploadTicket } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import {
  FUNCTION_LINE,
  type NpmStart,
  npmStart,
  REQUEST_LINE,
  SHOWS_WITHIN,
  STARTS_WITHIN,
  stopEveryStart,
} from '#test/support/npm-start.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';

const run = promisify(execFile);

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
/**
 * This file's LOCAL_DATA_DIR, given to every start and CLI it runs: a developer's `npm start`
 * in this checkout, on `.data/`, or another test run's, is never met.
 */
let dataDir: string;
let port: number;
let url: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-service-npm-start-'));
  dataDir = join(root, 'data');
  port = await freePort();
  url = `http://localhost:${String(port)}`;
});
afterAll(async () => {
  await stopEveryStart();
  await rm(root, { recursive: true, force: true });
});

/** Requests to one start, as user 1 unless the token is null; their request ids are kept. */
function client(token: () => string) {
  const requestIds: string[] = [];
  const request = async (path: string, init: RequestInit = {}, as: string | null = token()) => {
    const response = await fetch(`${url}${path}`, {
      ...init,
      headers: {
        ...(as === null ? {} : { authorization: `Bearer ${as}` }),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
    requestIds.push(response.headers.get('apigw-requestid') ?? '');
    return response;
  };
  return { request, requestIds };
}
type Client = ReturnType<typeof client>;

/** A file of user 1's, uploaded through the multipart route: its id. */
async function uploaded(api: Client): Promise<number> {
  const form = uploadForm('three', { name: 'deck.pdf' });
  const response = await api.request('/api/v1/user/me/file', {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

/** A direct upload whose bytes go to S3 with the signed form; the finalizer records it. */
async function directUpload(api: Client): Promise<number> {
  const started = await api.request('/api/v1/user/me/file/upload', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: 5 }),
  });
  expect(started.status).toBe(201);
  const ticket = (await started.json()) as DirectUploadTicket;
  expect(await postToSignedForm(ticket, Buffer.from('bytes'))).toBe(204);
  return ticket.id;
}

/** The names of user 1's files, listed. */
async function listedNames(api: Client): Promise<string[]> {
  const listed = await api.request('/api/v1/user/me/file');
  expect(listed.status).toBe(200);
  return ((await listed.json()) as { name: string }[]).map((file) => file.name);
}

/** Lists user 1's files until `id` is among them: the finalizer has recorded it. */
async function listedSoon(api: Client, id: number): Promise<void> {
  const deadline = Date.now() + SHOWS_WITHIN;
  for (;;) {
    const listed = (await (await api.request('/api/v1/user/me/file')).json()) as { id: number }[];
    if (listed.some((file) => file.id === id)) return;
    if (Date.now() > deadline) throw new Error(`file ${String(id)} not listed`);
    await new Promise((resolve) => {
      setTimeout(resolve, 100);
    });
  }
}

/** Notify about `fileId`; the queue's worker posts it to the chat log. */
async function notify(api: Client, fileId: number): Promise<void> {
  const response = await api.request('/api/v1/user/me/file/notify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file_ids: [fileId], fund_name: 'Local Fund' }),
  });
  expect(response.status).toBe(202);
  expect(await undocumented('POST', response)).toEqual([]);
}

const FUNCTIONS = {
  'GET /api/v1/user/me/file': 'ListUserFiles',
  'POST /api/v1/user/me/file': 'UploadUserFile',
  'POST /api/v1/user/me/file/upload': 'StartDirectUpload',
  'POST /api/v1/user/me/file/notify': 'NotifySubmission',
  'GET /no/such/path': 'RouteNotFound',
};

/** The console shows exactly one request line for each request made, naming its function. */
async function expectOneLinePerRequest(started: NpmStart, api: Client) {
  const shown = (id: string) => started.lines().some((line) => line.endsWith(` ${id}`));
  await started.waitForLine(() => api.requestIds.every(shown), 'line for every request');
  const requestLines = started.lines().filter((line) => REQUEST_LINE.test(line));
  expect(requestLines).toHaveLength(api.requestIds.length);
  for (const id of api.requestIds) {
    expect(
      requestLines.filter((line) => line.endsWith(` ${id}`)),
      id,
    ).toHaveLength(1);
  }
  for (const line of requestLines) {
    const [, method, path, , , functionId] = REQUEST_LINE.exec(line) ?? [];
    const expected = Object.entries(FUNCTIONS).find(([route]) =>
      new RegExp(`^${route}$`).test(`${method ?? ''} ${path ?? ''}`),
    );
    expect(functionId, line).toBe(expected?.[1]);
  }
  // Every other line is a function's, under its name.
  for (const line of started.lines().filter((l) => !REQUEST_LINE.test(l))) {
    expect(line).toMatch(FUNCTION_LINE);
  }
}

/** A test's limit: two starts, or one and the console's answers. */
const TEST_WITHIN = 2 * STARTS_WITHIN + 4 * SHOWS_WITHIN;

describe(
  'npm start, then Ctrl-C, npm start again, kill -9, npm start',
  { timeout: TEST_WITHIN },
  () => {
    let first: NpmStart;
    let firstApi: Client;
    let record: StageRecord | undefined;
    /** The DynamoDB Local of the start killed with kill -9. */
    let orphan = 0;
    const env = () => ({ PORT: String(port), LOCAL_DATA_DIR: dataDir });

    it('comes up with a banner, a demo token, and a token CLI that finds it', async () => {
      first = npmStart({ ...env(), LOG_LEVEL: 'INFO' });
      await first.waitFor('Ctrl-C stops it.');
      const banner = first.output();
      expect(banner).toContain(`up on ${url}`);
      expect(banner).toMatch(/Demo token for user 1[^\n]*\n {2}eyJ[\w-]+\.[\w-]+\.[\w-]+\n/);
      expect(banner).toContain(`curl -H "Authorization: Bearer eyJ`);
      expect(banner).toContain(`${url}/api/v1/user/me/file`);

      // The token CLI, given the stage's LOCAL_DATA_DIR, prints only a token while it runs.
      const { stdout, stderr } = await run(
        process.execPath,
        [join(REPOSITORY_ROOT, 'infra/local/cli/token-cli.ts'), '--user', '1'],
        { cwd: REPOSITORY_ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir } },
      );
      expect(stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
      expect(stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
      const token = stdout.trim();
      firstApi = client(() => token);
      record = await readStageRecord(dataDir);
      expect(record?.pid).toBeGreaterThan(0);
    });

    it('serves the API; with LOG_LEVEL=INFO every function logs under its name', async () => {
      // A file written straight to the stage's DynamoDB Local, at an id no upload will take.
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
            id: 1_000_000,
            userId: 1,
            name: 'kept.pdf',
            type: 'deck',
            createdAt: '2026-01-01T00:00:00.000Z',
            updatedAt: null,
            isArchived: false,
            filesize: 3,
            location: 'users/1/files/1000000',
          }),
        }),
      );
      dynamodb.destroy();

      /** The JSON of a function's log line, after its `[Name] `. */
      const logged = async (functionId: string, message: string) => {
        const line = await first.waitForLine(
          (l) => l.startsWith(`[${functionId}] {`) && l.includes(`"message":"${message}"`),
          `${functionId}'s "${message}"`,
        );
        return JSON.parse(line.slice(functionId.length + 3)) as Record<string, unknown>;
      };

      const listed = await firstApi.request('/api/v1/user/me/file');
      expect(listed.status).toBe(200);
      expect(await undocumented('GET', listed)).toEqual([]);
      expect(((await listed.json()) as { name: string }[]).map((f) => f.name)).toEqual([
        'kept.pdf',
      ]);
      // Structured logs carry API Gateway's request id, as the response does.
      expect(await logged('ListUserFiles', 'Request handled')).toMatchObject({
        level: 'INFO',
        service: 'file-service',
        function_name: 'ListUserFiles',
        correlation_id: listed.headers.get('apigw-requestid'),
        status: 200,
      });

      const id = await uploaded(firstApi);
      const direct = await directUpload(firstApi);
      // Under its name by its prefix. Its `function_name` is the shared logger's: in this one
      // process, the malware scan's verdicts run beside it (one invocation a container on Lambda).
      expect(await logged('FinalizeDirectUpload', 'Direct upload recorded')).toMatchObject({
        level: 'INFO',
        fileId: direct,
      });

      // With no CHAT_WEBHOOK_URL, a notify call's message is printed and kept in chat.jsonl.
      await notify(firstApi, id);
      expect(await logged('DeliverNotification', 'Submission notification sent')).toMatchObject({
        level: 'INFO',
      });
      await first.waitForLine(
        (line) => line === '[DeliverNotification] [chat] == New submission ==',
        'chat message',
      );
      // The file may still be under its malware scan: the line then says so.
      expect(first.lines()).toContainEqual(
        expect.stringMatching(
          /^\[DeliverNotification\] \[chat\] • \*deck\.pdf\* {2}· {2}Deck {2}· {2}5 bytes( {2}· {2}_held until the malware scan clears it_)?$/,
        ),
      );
      const chatLines = (await readFile(join(dataDir, 'chat.jsonl'), 'utf8')).trim().split('\n');
      expect(chatLines).toHaveLength(1);
      expect(JSON.parse(chatLines[0] ?? '')).toMatchObject({
        text: 'User 1 submitted 1 file for Local Fund',
        blocks: expect.any(Array) as unknown[],
      });

      await expectOneLinePerRequest(first, firstApi);
    });

    it('refuses a second start on the same port, and leaves the first alone', async () => {
      const second = npmStart(env());
      expect(await second.exited).not.toBe(0);
      expect(second.output()).toContain(`port ${String(port)} is already in use`);
      const refused = await fetch(`${url}/api/v1/user/me/file`);
      expect(refused.status).toBe(401);
      expect(await undocumented('GET', refused)).toEqual([]);
    });

    it('stops clean on Ctrl-C: no process of its data folder is left', async () => {
      // npm itself may end by the signal; the stage below it must stop on its own terms.
      expect([0, 'SIGINT']).toContain(await first.ctrlC());
      expect(first.output()).toContain('Stopped.');
      expect(alive(record?.pid ?? 0)).toBe(false);
      expect(alive(record?.dynamodbPid ?? 0)).toBe(false);
      expect(processesUsing(dataDir)).toEqual([]);
      await expect(readFile(join(dataDir, 'local-stage.json'))).rejects.toThrow();
    });

    it('keeps the data folder; by default the console has a line per request and no INFO', async () => {
      const again = npmStart(env());
      await again.waitFor('Ctrl-C stops it.');
      const api = client(() => again.demoToken());
      expect(await listedNames(api)).toEqual(['model.xlsx', 'deck.pdf', 'kept.pdf']);
      expect((await api.request('/api/v1/user/me/file', {}, null)).status).toBe(401);
      expect((await api.request('/no/such/path')).status).toBe(404);
      const id = await uploaded(api);
      // The finalizer records a direct upload, and says nothing of a success.
      await listedSoon(api, await directUpload(api));
      await notify(api, id);
      // The worker's chat message, under the worker's name.
      await again.waitForLine(
        (line) => line === '[DeliverNotification] [chat] == New submission ==',
        'chat message',
      );
      await expectOneLinePerRequest(again, api);
      expect(again.output()).not.toContain('"level":"INFO"');

      // Killed outright this time, not stopped: its DynamoDB Local is left behind.
      const killed = await readStageRecord(dataDir);
      orphan = killed?.dynamodbPid ?? 0;
      process.kill(killed?.pid ?? 0, 'SIGKILL');
      await again.exited;
      expect(alive(orphan)).toBe(true);
    });

    // A start of its own costs seconds of CPU: the one above is the start killed outright.
    it('stops the DynamoDB Local a start killed outright (kill -9) left behind', async () => {
      const next = npmStart(env());
      await next.waitFor('Ctrl-C stops it.');
      expect(alive(orphan)).toBe(false);
      expect([0, 'SIGINT']).toContain(await next.ctrlC());
      expect(next.output()).toContain('Stopped.');
      expect(processesUsing(dataDir)).toEqual([]);
    });
  },
);

describe('npm start refusing', { timeout: TEST_WITHIN }, () => {
  it('refuses a PORT that is taken by anything, with a clear message', async () => {
    const blocker = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    try {
      const started = npmStart({
        PORT: String(taken),
        LOCAL_DATA_DIR: dataDir,
      });
      expect(await started.exited).toBe(1);
      expect(started.output()).toContain(`npm start: port ${String(taken)} is already in use`);
    } finally {
      blocker.close();
    }
  });
});
