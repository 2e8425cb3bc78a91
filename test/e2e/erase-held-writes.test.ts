/**
 * `admin user erase` while a notify is under way (issue 53): the writes that no record's
 * transaction held to the erasure marker, the notify allowance and the response an idempotent
 * call saves, are held to it too, so a notify whose write reaches DynamoDB only after the
 * erasure ended (here: held at a proxy in front of it, then let go) leaves nothing of theirs.
 * The erasure runs with `--settle-seconds 0`: no wait covers for the race.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '#test/support/eventually.ts';
import { type HoldingProxy, startHoldingProxy } from '#test/support/holding-proxy.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';

let proxy: HoldingProxy | undefined;
const held = () => {
  if (proxy === undefined) throw new Error('The stage starts first');
  return proxy;
};
// Registered first, so it runs after the stage has closed (after-hooks run in reverse).
afterAll(async () => {
  await proxy?.close();
});
const stage = useTestStage(() => ({
  handlerEndpoints: async (real) => {
    proxy = await startHoldingProxy(real.dynamodb);
    return { ...real, dynamodb: proxy.url };
  },
}));

const NOTIFY = '/api/v1/user/me/file/notify';

async function fileOf(user: number): Promise<number> {
  const response = await stage().upload(user, uploadForm('submitted'));
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

const notify = (user: number, fileId: number, headers: Record<string, string> = {}) =>
  stage().request(NOTIFY, {
    method: 'POST',
    as: user,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ file_ids: [fileId] }),
  });

/** Erases `user` while the call `which` picks waits at the proxy; then lets it go on. */
async function eraseWhileHeld(
  user: number,
  which: Parameters<HoldingProxy['hold']>[0],
  send: () => Promise<Response>,
): Promise<Response> {
  held().hold(which);
  const answer = send();
  try {
    await eventually(() => held().held() > 0 || undefined);
    const erased = await stage().admin([
      'user',
      'erase',
      '--user',
      String(user),
      '--settle-seconds',
      '0',
    ]);
    expect(erased.code).toBe(0);
  } finally {
    held().release();
  }
  return answer;
}

/** Everything stored under the user's id: their partition and their idempotency records. */
const theirs = async (user: number) =>
  (await stage().items())
    .filter((item) => String(item.PK).endsWith(`USER#${String(user)}`))
    .map((item) => `${String(item.PK)} ${String(item.SK)}`);

describe('npm run admin -- user erase, while a notify is under way', () => {
  it('leaves no notify allowance behind a take that lands after it', async () => {
    const user = 4400;
    const fileId = await fileOf(user);
    // The take, the first write that names the allowance: it lands once the erasure is over.
    const response = await eraseWhileHeld(
      user,
      (call) => call.body.includes('LIMIT#notify'),
      () => notify(user, fileId),
    );
    // Erased since the files were read: they are gone, as the 404 says.
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { detail: `File not found: ${String(fileId)}` },
    });
    expect(await theirs(user)).toEqual([`USER#${String(user)} ERASED`]);
  });

  it('leaves no saved response behind an idempotent notify that ends after it', async () => {
    const user = 4401;
    const fileId = await fileOf(user);
    const key = { 'idempotency-key': `erase-${randomUUID()}` };
    // Powertools' save of the finished call's response: the erasure took the record meanwhile.
    const response = await eraseWhileHeld(
      user,
      (call) => call.operation === 'UpdateItem' && call.body.includes('IDEMPOTENCY#'),
      () => notify(user, fileId, key),
    );
    // Queued before the erasure began, and answered so; nothing of it outlives the erasure.
    expect(response.status).toBe(202);
    expect(await theirs(user)).toEqual([`USER#${String(user)} ERASED`]);
    // The key is not kept for an erased caller: the call runs again, and is refused as such.
    const again = await notify(user, fileId, key);
    expect({ status: again.status, body: await again.json() }).toEqual({
      status: 404,
      body: { detail: `File not found: ${String(fileId)}` },
    });
    expect(await theirs(user)).toEqual([`USER#${String(user)} ERASED`]);
  });

  it('keeps no idempotency record of an erased caller whose record is put after it', async () => {
    const user = 4402;
    const fileId = await fileOf(user);
    const key = { 'idempotency-key': `erase-${randomUUID()}` };
    const response = await eraseWhileHeld(
      user,
      (call) => call.body.includes(`IDEMPOTENCY#notify-submission#USER#${String(user)}`),
      () => notify(user, fileId, key),
    );
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { detail: `File not found: ${String(fileId)}` },
    });
    expect(await theirs(user)).toEqual([`USER#${String(user)} ERASED`]);
  });
});
