import { mkdir } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '#functions/service-functions.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { launchChromium } from '#test/support/chromium.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const SCREENSHOT = '.test-artifacts/docs-page.png';
const USER = 8800;

let browser: Browser | undefined;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('/docs in a browser', () => {
  it('lists every route, and "Try it out" with a pasted token reaches the stage', async () => {
    if (browser === undefined) throw new Error('Chromium starts in beforeAll');
    await stage().put([
      toUserFileItem({
        id: 1,
        userId: USER,
        name: 'Tried from the docs.pdf',
        type: 'deck',
        createdAt: '2026-11-21T09:00:00.000Z',
        updatedAt: null,
        isArchived: false,
        filesize: 1234,
        location: `users/${String(USER)}/files/1`,
      }),
    ]);
    const origin = new URL(stage().url).origin;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    // Every wait for the page (navigation, a locator, a response), not Playwright's 30 s.
    page.setDefaultTimeout(waitLimit(30_000));
    const elsewhere: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin) elsewhere.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${stage().url}/docs`);
    await page
      .locator('.opblock')
      .nth(API_ROUTES.length - 1)
      .waitFor();
    const summaries = await page.locator('.opblock-summary').all();
    const shown = await Promise.all(
      summaries.map(async (summary) => {
        const method = await summary.locator('.opblock-summary-method').textContent();
        const path = await summary.locator('.opblock-summary-path').getAttribute('data-path');
        return `${method ?? ''} ${path ?? ''}`;
      }),
    );
    expect(shown.sort()).toEqual(API_ROUTES.map((r) => `${r.method} ${r.path}`).sort());

    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.auth-container input').fill(await stage().token(USER));
    await page.locator('.auth-btn-wrapper .authorize').click();
    await page.locator('.auth-btn-wrapper .btn-done').click();

    const list = page.locator('#operations-User_files-listUserFiles');
    await list.locator('.opblock-summary').click();
    await list.locator('.try-out__btn').click();
    const answered = page.waitForResponse((r) => r.url() === `${stage().url}/api/v1/user/me/file`);
    await list.locator('.execute').click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.json()).toEqual([
      {
        name: 'Tried from the docs.pdf',
        id: 1,
        user_id: USER,
        type: 'deck',
        created_at: '2026-11-21T09:00:00.000Z',
        updated_at: null,
        is_archived: false,
        filesize: 1234,
        location: `users/${String(USER)}/files/1`,
      },
    ]);
    const status = list.locator('.live-responses-table .response .response-col_status');
    await expect.poll(() => status.textContent(), { timeout: waitLimit(10_000) }).toBe('200');
    await expect
      .poll(() => list.locator('.live-responses-table .microlight').first().textContent(), {
        timeout: waitLimit(10_000),
      })
      .toContain('Tried from the docs.pdf');

    await mkdir('.test-artifacts', { recursive: true });
    await list.scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
