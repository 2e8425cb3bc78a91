import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from '#test/support/chromium.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

/** A blank page on its own port: the second origin the browser runs the web app from. */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>web app</title>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, origin: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}

let allowed: { server: Server; origin: string } | undefined;
let other: { server: Server; origin: string } | undefined;
// The stage allows the one page's origin only (ALLOWED_ORIGINS), so the other page's, on
// another port of the same host, is refused; registered before the stage's own beforeAll.
beforeAll(async () => {
  [allowed, other] = await Promise.all([servePage(), servePage()]);
  vi.stubEnv('ALLOWED_ORIGINS', allowed.origin);
});
const stage = useTestStage();
const USER = 8900;

let browser: Browser | undefined;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await browser?.close();
  await Promise.all(
    [allowed, other].map(
      (page) =>
        new Promise<void>((done) => {
          page?.server.closeAllConnections();
          if (page === undefined) done();
          else
            page.server.close(() => {
              done();
            });
        }),
    ),
  );
});

async function openPage(origin: string): Promise<Page> {
  if (browser === undefined) throw new Error('Chromium starts in beforeAll');
  const page = await browser.newPage();
  page.setDefaultTimeout(waitLimit(30_000));
  await page.goto(origin);
  return page;
}

describe('a web app on another origin, in Chromium', () => {
  it('lists, uploads (multipart and direct), downloads, notifies and gets a realtime token', async () => {
    const page = await openPage(allowed?.origin ?? '');
    const token = await stage().token(USER);
    const seen = await page.evaluate(
      async ({ api, token }) => {
        const auth = { authorization: `Bearer ${token}` };
        const json = { ...auth, 'content-type': 'application/json' };
        const listed = await fetch(`${api}/api/v1/user/me/file`, { headers: auth });
        const form = new FormData();
        form.append('file', new Blob(['from the browser']), 'browser.txt');
        form.append('name', 'browser.txt');
        form.append('type', 'deck');
        const uploaded = await fetch(`${api}/api/v1/user/me/file`, {
          method: 'POST',
          headers: { ...auth, 'idempotency-key': 'browser-upload-1' },
          body: form,
        });
        const uploadedFile = (await uploaded.json()) as { id: number };
        const started = await fetch(`${api}/api/v1/user/me/file/upload`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ name: 'direct.bin', type: 'deck', filesize: 6 }),
        });
        const ticket = (await started.json()) as {
          id: number;
          url: string;
          fields: Record<string, string>;
        };
        const signed = new FormData();
        for (const [name, value] of Object.entries(ticket.fields)) signed.append(name, value);
        signed.append('file', new Blob(['direct']), 'direct.bin');
        const posted = await fetch(ticket.url, { method: 'POST', body: signed });
        const completed = await fetch(
          `${api}/api/v1/user/me/file/upload/${String(ticket.id)}/complete`,
          {
            method: 'POST',
            headers: auth,
          },
        );
        // The API's 302 sends the browser on to the bucket's signed link, once the malware scan
        // has cleared the file: a 409 with Retry-After (exposed to the page) says ask again.
        const download = () =>
          fetch(`${api}/api/v1/user/me/file/${String(uploadedFile.id)}/download`, {
            headers: auth,
          });
        let downloaded = await download();
        while (downloaded.status === 409 && downloaded.headers.get('retry-after') !== null) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          downloaded = await download();
        }
        const notified = await fetch(`${api}/api/v1/user/me/file/notify`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ file_ids: [uploadedFile.id], fund_name: null }),
        });
        const realtime = await fetch(`${api}/api/v1/auth/get-realtime-token`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ room_ids: [] }),
        });
        return {
          listed: [listed.status, await listed.json()],
          uploaded: uploaded.status,
          started: started.status,
          posted: posted.status,
          completed: [completed.status, ((await completed.json()) as { name: string }).name],
          downloaded: [downloaded.status, await downloaded.text()],
          notified: [notified.status, notified.headers.get('location')],
          realtime: [realtime.status, typeof ((await realtime.json()) as { token?: string }).token],
        };
      },
      { api: stage().url, token },
    );
    expect(seen).toMatchObject({
      listed: [200, []],
      uploaded: 201,
      started: 201,
      posted: 204,
      completed: [201, 'direct.bin'],
      downloaded: [200, 'from the browser'],
      notified: [202, expect.stringMatching(/^\/api\/v1\/user\/me\/file\/notify\/[\w-]+$/)],
      realtime: [200, 'string'],
    });
    await page.close();
  });

  it('a page on an origin not allowed is refused by the browser, and nothing is stored', async () => {
    const page = await openPage(other?.origin ?? '');
    const token = await stage().token(USER + 1);
    const before = stage().finishedRequests().length;
    const errors = await page.evaluate(
      async ({ api, token }) => {
        const form = new FormData();
        form.append('file', new Blob(['refused']), 'refused.txt');
        form.append('name', 'refused.txt');
        form.append('type', 'deck');
        const tries = [
          fetch(`${api}/api/v1/user/me/file`, { headers: { authorization: `Bearer ${token}` } }),
          fetch(`${api}/api/v1/user/me/file`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: form,
          }),
        ];
        return Promise.all(
          tries.map((tried) =>
            tried.then(
              (response) => `answered ${String(response.status)}`,
              (error: unknown) => (error instanceof TypeError ? 'TypeError' : String(error)),
            ),
          ),
        );
      },
      { api: stage().url, token },
    );
    expect(errors).toEqual(['TypeError', 'TypeError']);
    // The browser sent neither: no item and no object of that user's.
    const stored = await stage().stored();
    expect(stored.items.filter((item) => JSON.stringify(item).includes(String(USER + 1)))).toEqual(
      [],
    );
    expect(stored.objects.filter((key) => key.includes(`/${String(USER + 1)}/`))).toEqual([]);
    // The browser asked first (the token makes both calls preflighted), was answered without
    // an Access-Control-Allow-Origin for its origin, and sent neither call.
    const since = stage().finishedRequests().slice(before);
    expect(since.map((line) => [line.method, line.path, line.status])).toContainEqual([
      'OPTIONS',
      '/api/v1/user/me/file',
      204,
    ]);
    expect(since.filter((line) => line.method !== 'OPTIONS')).toEqual([]);
    const preflight = await fetch(`${stage().url}/api/v1/user/me/file`, {
      method: 'OPTIONS',
      headers: {
        origin: other?.origin ?? '',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    await page.close();
  });
});
