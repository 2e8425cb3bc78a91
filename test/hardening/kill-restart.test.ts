/**
 * A developer's data survives a crash of the local stage: `npm start` killed with kill -9 right
 * after it answered an upload 201, twenty times, and started again on the same data folder.
 * Every file answered 201 is listed and downloadable, byte for byte. Half the kills take the
 * whole process group (DynamoDB Local's JVM with it: what it acknowledged must be on disk),
 * half the stage's process alone (its JVM is left running, and the next start stops it).
 */
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '#infra/local/stage/listening.ts';
import { readStageRecord } from '#infra/local/stage/stage-lock.ts';
import { eventually } from '#test/support/eventually.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { npmStart, stopEveryStart } from '#test/support/npm-start.ts';
import { waitLimit } from '#test/support/wait-limit.ts';

const KILLS = 20;

let root: string;
let env: Record<string, string>;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-service-kill-restart-'));
  await mkdir(join(root, 'tmp'));
  env = {
    LOCAL_DATA_DIR: join(root, 'data'),
    PORT: String(await freePort()),
    // A JVM killed outright leaves the SQLite library it unpacked: here, not in /tmp.
    JAVA_TOOL_OPTIONS: `-Djava.io.tmpdir=${join(root, 'tmp')}`,
  };
});
afterAll(async () => {
  await stopEveryStart();
  await rm(root, { recursive: true, force: true });
});

describe('npm start killed with kill -9', () => {
  it(
    `keeps every file it answered 201, listed and downloadable, over ${String(KILLS)} kills`,
    async () => {
      const url = `http://localhost:${env.PORT ?? ''}`;
      const stored = new Map<number, string>();
      for (let round = 1; round <= KILLS + 1; round++) {
        const stage = npmStart(env);
        await stage.waitFor('Ctrl-C stops it.');
        const auth = { authorization: `Bearer ${stage.demoToken()}` };
        const listed = await fetch(`${url}/api/v1/user/me/file`, { headers: auth });
        const ids = ((await listed.json()) as { id: number }[]).map((file) => file.id);
        expect(ids.sort((a, b) => a - b)).toEqual([...stored.keys()].sort((a, b) => a - b));
        // The last file before the kill each time; every file at the end.
        const checked = round > KILLS ? [...stored] : [...stored].slice(-1);
        for (const [id, bytes] of checked) {
          const link = await eventually(async () => {
            const answer = await fetch(`${url}/api/v1/user/me/file/${String(id)}/download`, {
              headers: auth,
              redirect: 'manual',
            });
            await answer.body?.cancel();
            return answer.status === 302 ? answer : undefined;
          }, waitLimit(60_000));
          expect(await (await fetch(link.headers.get('location') ?? '')).text()).toBe(bytes);
        }
        if (round > KILLS) {
          expect([0, 'SIGINT']).toContain(await stage.ctrlC());
          break;
        }
        const bytes = `bytes of the file uploaded in round ${String(round)}`;
        const form = uploadForm(bytes, { name: `round-${String(round)}.pdf` });
        // The whole group, or the stage's own process (its record names it).
        const group = stage.child.pid;
        const own = (await readStageRecord(env.LOCAL_DATA_DIR ?? ''))?.pid;
        if (group === undefined || own === undefined) throw new Error('npm start has no pid');
        const victim = round % 2 === 0 ? -group : own;
        const answer = await fetch(`${url}/api/v1/user/me/file`, {
          method: 'POST',
          headers: { ...auth, 'content-type': form.contentType },
          body: form.body,
        });
        // At once: before anything the answer asks of the stage afterwards (its scan, its verdict).
        process.kill(victim, 'SIGKILL');
        expect(answer.status).toBe(201);
        stored.set(((await answer.json()) as { id: number }).id, bytes);
        await stage.exited;
      }
    },
    waitLimit(900_000),
  );
});
