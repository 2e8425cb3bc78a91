/**
 * The console `npm start` prints, as a person reads it: one line per request (method, path,
 * status, milliseconds, the function that answered, the request id), what a function writes
 * under its own name (the finalizer and the queue's worker too), and no INFO lines unless
 * LOG_LEVEL (or POWERTOOLS_LOG_LEVEL) asks for them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '#infra/local/free-port.ts';
import { REPOSITORY_ROOT } from '#infra/local/paths.ts';
import type { DirectUploadTicket } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { patient } from '#test/support/patience.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';

/** How long one `npm start` may take to come up: seconds when idle, far more on a busy machine. */
const STARTS_WITHIN = patient(120_000);
/** How long the console may take to show what a request or a delivery caused. */
const SHOWS_WITHIN = patient(30_000);

/** `GET /api/v1/user/me/file 200 12ms ListUserFiles Mx3bXjYAoAMEJ8w=` */
const REQUEST_LINE = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*) (\d{3}) (\d+)ms (\w+) (\S{15})$/;
const BANNER_END = 'Ctrl-C stops it.\n';
/** A line a function wrote: `[FinalizeDirectUpload] {"level":"WARN",…}`. */
const FUNCTION_LINE = /^\[[A-Z][A-Za-z]+\] ./;

interface Console {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything printed, stdout and stderr. */
  output(): string;
  /** What came after the banner, line by line. */
  lines(): string[];
  /** Waits until a line after the banner satisfies `test`: that line. */
  waitForLine(test: (line: string) => boolean, what: string): Promise<string>;
  /** Waits until the console shows a request line for every request made. */
  waitForRequestLines(): Promise<void>;
  /** A request to the stage, as user 1 unless `token` is null; its request id is kept. */
  request(path: string, init?: RequestInit, token?: string | null): Promise<Response>;
  /** The request ids of every request made through `request`. */
  readonly requestIds: string[];
  /** Ctrl-C, and the wait for the stage to stop. */
  stop(): Promise<void>;
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-service-console-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** `npm start` as a developer runs it, in a terminal of its own, with `env` added. */
async function npmStart(name: string, env: Record<string, string>): Promise<Console> {
  const port = await freePort();
  // The run's own log settings (Vitest sets POWERTOOLS_LOG_LEVEL) are not a developer's.
  const { POWERTOOLS_LOG_LEVEL: _level, LOG_LEVEL: _alias, ...inherited } = process.env;
  const child = spawn('npm', ['start'], {
    cwd: REPOSITORY_ROOT,
    env: {
      ...inherited,
      PORT: String(port),
      LOCAL_DATA_DIR: join(root, name, 'data'),
      LOCAL_STAGE_HOME: join(root, name, 'home'),
      ...env,
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const waitFor = async <T>(found: () => T | undefined, what: string, ms: number): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = found();
      if (value !== undefined) return value;
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (Date.now() > deadline) throw new Error(`no ${what} within ${String(ms)} ms:\n${output}`);
      await new Promise((resolve) => {
        setTimeout(resolve, 50);
      });
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    await exited;
  };
  try {
    await waitFor(() => (output.includes(BANNER_END) ? true : undefined), 'banner', STARTS_WITHIN);
  } catch (error) {
    await stop();
    throw error;
  }
  const token = /Demo token for user 1[^\n]*\n {2}(eyJ[\w.-]+)\n/.exec(output)?.[1] ?? '';
  const url = `http://localhost:${String(port)}`;
  const lines = () =>
    output
      .slice(output.indexOf(BANNER_END) + BANNER_END.length)
      .split('\n')
      .filter((line) => line !== '');
  const requestIds: string[] = [];
  return {
    child,
    url,
    output: () => output,
    lines,
    waitForLine: (test, what) => waitFor(() => lines().find(test), what, SHOWS_WITHIN),
    waitForRequestLines: async () => {
      const shown = () =>
        requestIds.every((id) => lines().some((line) => line.endsWith(` ${id}`)))
          ? true
          : undefined;
      await waitFor(shown, 'line for every request', SHOWS_WITHIN);
    },
    request: async (path, init = {}, as = token) => {
      const response = await fetch(`${url}${path}`, {
        ...init,
        headers: {
          ...(as === null ? {} : { authorization: `Bearer ${as}` }),
          ...(init.headers as Record<string, string> | undefined),
        },
      });
      requestIds.push(response.headers.get('apigw-requestid') ?? '');
      return response;
    },
    requestIds,
    stop,
  };
}

/** A file of user 1's, uploaded through the multipart route: its id. */
async function uploaded(stage: Console): Promise<number> {
  const form = uploadForm('three', { name: 'deck.pdf' });
  const response = await stage.request('/api/v1/user/me/file', {
    method: 'POST',
    headers: { 'content-type': form.contentType },
    body: form.body,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

/** A direct upload whose bytes go to S3 with the signed form; the finalizer records it. */
async function directUpload(stage: Console): Promise<number> {
  const started = await stage.request('/api/v1/user/me/file/upload', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: 5 }),
  });
  expect(started.status).toBe(201);
  const ticket = (await started.json()) as DirectUploadTicket;
  expect(await postToSignedForm(ticket, Buffer.from('bytes'))).toBe(204);
  return ticket.id;
}

/** Lists user 1's files until `id` is among them: the finalizer has recorded it. */
async function listedSoon(stage: Console, id: number): Promise<void> {
  const deadline = Date.now() + SHOWS_WITHIN;
  for (;;) {
    const listed = (await (await stage.request('/api/v1/user/me/file')).json()) as { id: number }[];
    if (listed.some((file) => file.id === id)) return;
    if (Date.now() > deadline) throw new Error(`file ${String(id)} not listed`);
    await new Promise((resolve) => {
      setTimeout(resolve, 100);
    });
  }
}

/** Notify about `fileId`; the queue's worker posts it to the chat log. */
async function notify(stage: Console, fileId: number): Promise<void> {
  const response = await stage.request('/api/v1/user/me/file/notify', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file_ids: [fileId], fund_name: 'Console Fund' }),
  });
  expect(response.status).toBe(202);
}

/** Exactly one request line for each request made, naming its function, and no other. */
function expectOneLinePerRequest(stage: Console, functions: Record<string, string>) {
  const requestLines = stage.lines().filter((line) => REQUEST_LINE.test(line));
  expect(requestLines).toHaveLength(stage.requestIds.length);
  for (const id of stage.requestIds) {
    const mine = requestLines.filter((line) => line.endsWith(` ${id}`));
    expect(mine, id).toHaveLength(1);
  }
  for (const line of requestLines) {
    const [, method, path, , , functionId] = REQUEST_LINE.exec(line) ?? [];
    const expected = Object.entries(functions).find(([route]) =>
      new RegExp(`^${route}$`).test(`${method ?? ''} ${path ?? ''}`),
    );
    expect(functionId, line).toBe(expected?.[1]);
  }
}

const FUNCTIONS = {
  'GET /api/v1/user/me/file': 'ListUserFiles',
  'POST /api/v1/user/me/file': 'UploadUserFile',
  'POST /api/v1/user/me/file/upload': 'StartDirectUpload',
  'POST /api/v1/user/me/file/notify': 'NotifySubmission',
  'GET /no/such/path': 'RouteNotFound',
};

describe('the npm start console', { timeout: STARTS_WITHIN + 4 * SHOWS_WITHIN }, () => {
  it('by default: a line per request, no INFO, what a function writes under its name', async () => {
    const stage = await npmStart('quiet', {});
    try {
      expect((await stage.request('/api/v1/user/me/file')).status).toBe(200);
      expect((await stage.request('/api/v1/user/me/file', {}, null)).status).toBe(401);
      expect((await stage.request('/no/such/path')).status).toBe(404);
      const id = await uploaded(stage);
      // The finalizer records a direct upload, and says nothing of a success.
      await listedSoon(stage, await directUpload(stage));
      await notify(stage, id);
      // The worker's chat message, under the worker's name.
      await stage.waitForLine(
        (line) => line === '[DeliverNotification] [chat] == New submission ==',
        'chat message',
      );
      await stage.waitForRequestLines();

      expectOneLinePerRequest(stage, FUNCTIONS);
      // Anything else is a function's, under its name: here the chat message (and whatever a
      // function warns of), never an INFO line.
      const others = stage.lines().filter((line) => !REQUEST_LINE.test(line));
      for (const line of others) expect(line).toMatch(FUNCTION_LINE);
      expect(others).toContain('[DeliverNotification] [chat] == New submission ==');
      expect(stage.output()).not.toContain('"level":"INFO"');
    } finally {
      await stage.stop();
    }
  });

  it('with LOG_LEVEL=INFO: every function’s log lines, each under its name', async () => {
    const stage = await npmStart('chatty', { LOG_LEVEL: 'INFO' });
    /** The JSON of a function's log line, after its `[Name] `. */
    const logged = async (functionId: string, message: string) => {
      const line = await stage.waitForLine(
        (l) => l.startsWith(`[${functionId}] {`) && l.includes(`"message":"${message}"`),
        `${functionId}'s "${message}"`,
      );
      return JSON.parse(line.slice(functionId.length + 3)) as Record<string, unknown>;
    };
    try {
      const listed = await stage.request('/api/v1/user/me/file');
      expect(listed.status).toBe(200);
      expect(await logged('ListUserFiles', 'Request handled')).toMatchObject({
        level: 'INFO',
        function_name: 'ListUserFiles',
        correlation_id: listed.headers.get('apigw-requestid'),
      });
      const id = await uploaded(stage);
      const direct = await directUpload(stage);
      expect(await logged('FinalizeDirectUpload', 'Direct upload recorded')).toMatchObject({
        level: 'INFO',
        function_name: 'FinalizeDirectUpload',
        fileId: direct,
      });
      await notify(stage, id);
      expect(await logged('DeliverNotification', 'Submission notification sent')).toMatchObject({
        level: 'INFO',
        function_name: 'DeliverNotification',
      });
      await stage.waitForRequestLines();
      expectOneLinePerRequest(stage, FUNCTIONS);
      // Every other line is a function's, under its name.
      const others = stage.lines().filter((line) => !REQUEST_LINE.test(line));
      for (const line of others) expect(line).toMatch(FUNCTION_LINE);
    } finally {
      await stage.stop();
    }
  });
});
