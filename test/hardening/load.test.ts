/**
 * 50 clients for 30 s (LOAD_SECONDS) on the local stage, each listing, asking for a token and
 * uploading a small file in turn as a user of its own: no error, no non-2xx, and afterwards
 * every upload's record and object there, under ids no two uploads share.
 */
import { describe, expect, it } from 'vitest';
import { runMixedLoad } from '#test/support/mixed-load.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const CONNECTIONS = 50;
const SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const FIRST_USER = 7000;

const SETTLES_WITHIN = waitLimit(30_000);

/** What the stage holds once writes still in flight when the load stopped have landed. */
async function settled() {
  let last = '';
  for (const deadline = Date.now() + SETTLES_WITHIN; Date.now() < deadline;) {
    // Unchanged across half a second: nothing is still landing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await stage()
      .stored()
      .catch(() => undefined);
    if (now === undefined) continue;
    const text = JSON.stringify(now);
    if (text === last) return now;
    last = text;
  }
  throw new Error(
    `The stage was still writing ${String(SETTLES_WITHIN)} ms after the load stopped`,
  );
}

describe('load on the local stage', () => {
  it(`${String(CONNECTIONS)} clients for ${String(SECONDS)} s: no errors, every upload stored whole, ids unique`, async () => {
    const tokens = await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, i) => stage().token(FIRST_USER + i)),
    );
    const run = await runMixedLoad({
      url: stage().url,
      connections: CONNECTIONS,
      seconds: SECONDS,
      routes: ['list', 'token', 'upload'],
      tokenOf: (connection) => tokens[connection % CONNECTIONS] ?? '',
    });
    expect(run.result.errors).toBe(0);
    expect(run.result.timeouts).toBe(0);
    expect(run.result.non2xx).toBe(0);
    expect(Object.keys(run.statuses.list)).toEqual(['200']);
    expect(Object.keys(run.statuses.token)).toEqual(['200']);
    expect(Object.keys(run.statuses.upload)).toEqual(['201']);

    const ids = run.uploadedIds;
    expect(ids.length).toBeGreaterThan(CONNECTIONS);
    expect(new Set(ids).size).toBe(ids.length);
    const { items, objects } = await settled();
    const recorded = items
      .filter((item) => String(item.SK).startsWith('FILE#'))
      .map((item) => ({ user: String(item.PK).slice(5), id: Number(String(item.SK).slice(5)) }));
    // Every answered upload is recorded; requests still running when the clock stopped
    // finished on the stage unanswered, at most one per client.
    expect(recorded.map((r) => r.id)).toEqual(expect.arrayContaining([...ids]));
    expect(recorded.length - ids.length).toBeLessThanOrEqual(CONNECTIONS);
    expect(new Set(recorded.map((r) => r.id)).size).toBe(recorded.length);
    expect(objects.sort()).toEqual(
      recorded.map((r) => `users/${r.user}/files/${String(r.id)}`).sort(),
    );

    expect(await stage().reconcile()).toMatchObject({ clean: true });
    console.log(
      `load: ${String(run.result.requests.total)} requests in ${String(SECONDS)} s, ` +
        `${run.result.requests.average.toFixed(0)} req/s, p99 ${String(run.result.latency.p99)} ms, ` +
        `${String(ids.length)} uploads`,
    );
  });
});
