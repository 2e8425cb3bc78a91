/**
 * Faults at the adapters, on the wire: a proxy in front of DynamoDB Local and the object store answers
 * calls as AWS answers a fault (throttling, 500s), or lets a write land and loses its answer.
 * Every request either completes or leaves nothing behind, and reconcile finds nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DYNAMODB_INTERNAL_ERROR,
  DYNAMODB_THROTTLED,
  type FaultProxy,
  type FaultAnswer,
  type ProxiedCall,
  S3_INTERNAL_ERROR,
  S3_SLOW_DOWN,
  seededRandom,
  startFaultProxy,
} from '#test/support/fault-proxy.ts';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

let dynamodb: FaultProxy | undefined;
let s3: FaultProxy | undefined;
let receiver: WebhookReceiver;
const proxies = () => {
  if (dynamodb === undefined || s3 === undefined)
    throw new Error('The proxies start with the stage');
  return { dynamodb, s3 };
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
const stage = useTestStage(() => ({
  // Faults are picked call by call from a seed: the malware scan's verdicts, written when
  // each scan ends, would move which calls fail from run to run. Their retries are tested in
  // test/integration/scan-verdicts.test.ts.
  malwareScanning: false,
  chatWebhookUrl: receiver.url,
  settings: {
    CHAT_RETRY_BASE_SECONDS: 0.2,
    // No test here needs a post to time out: a limit the receiver never misses.
    CHAT_TIMEOUT_SECONDS: waitLimit(5_000) / 1000,
  },
  handlerEndpoints: async (real) => {
    dynamodb = await startFaultProxy(real.dynamodb);
    s3 = await startFaultProxy(real.s3);
    return { dynamodb: dynamodb.url, s3: s3.url };
  },
}));
afterAll(async () => {
  await Promise.all([dynamodb?.close(), s3?.close(), receiver.close()]);
});
beforeEach(() => {
  proxies().dynamodb.setPlan(() => undefined);
  proxies().s3.setPlan(() => undefined);
  receiver.reset();
});

/** Fails a share of the calls `which` picks, each with one of `answers`; seeded. */
function someOf(
  which: (call: ProxiedCall) => boolean,
  rate: number,
  answers: readonly FaultAnswer[],
  seed: number,
) {
  const random = seededRandom(seed);
  return (call: ProxiedCall) => {
    if (!which(call) || random() >= rate) return undefined;
    return answers[Math.floor(random() * answers.length)];
  };
}

const USER = 6100;
const isS3Write = (method: string) => (call: ProxiedCall) =>
  call.operation === undefined && call.method === method;
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems']);

/** `count` uploads named `<label><n>.pdf`, eight at a time: each one's status, and its id. */
async function uploads(label: string, count: number) {
  const results: { name: string; status: number; id?: number }[] = [];
  for (let i = 0; i < count; i += 8) {
    results.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(8, count - i) }, async (_, j) => {
          const response = await stage().upload(
            USER,
            uploadForm(`bytes of upload ${String(i + j)}`, {
              name: `${label}${String(i + j)}.pdf`,
            }),
          );
          const body = (await response.json()) as { id?: number };
          return {
            name: `${label}${String(i + j)}.pdf`,
            status: response.status,
            ...(response.status === 201 ? { id: body.id } : {}),
          };
        }),
      )),
    );
  }
  return results;
}

/**
 * Every created upload's record and object are there; an upload that failed left no record
 * (and so, reconcile being clean, no object either).
 */
async function expectWholeOrNothing(
  results: readonly { name: string; status: number; id?: number }[],
) {
  const { items, objects } = await stage().stored();
  const names = new Set(items.map((item) => item.name));
  for (const { name, status } of results) expect(names.has(name), name).toBe(status === 201);
  for (const { id } of results.filter((r) => r.status === 201)) {
    expect(
      items.some((i) => i.PK === `USER#${String(USER)}` && i.SK === `FILE#${String(id)}`),
    ).toBe(true);
    expect(objects).toContain(`users/${String(USER)}/files/${String(id)}`);
  }
}

describe('faults at the adapters leave nothing half-written', () => {
  it('S3 puts failing: an upload is stored whole or not at all', async () => {
    proxies().s3.setPlan(someOf(isS3Write('PUT'), 0.5, [S3_SLOW_DOWN, S3_INTERNAL_ERROR], 11));
    const results = await uploads('s3-put-', 40);
    const statuses = new Set(results.map((r) => r.status));
    expect([...statuses].every((s) => [201, 500, 503].includes(s))).toBe(true);
    expect(statuses.has(201)).toBe(true);
    expect(results.some((r) => r.status !== 201)).toBe(true);
    expect(proxies().s3.seen.get('S3 PUT')?.failed).toBeGreaterThan(0);
    await expectWholeOrNothing(results);
    expect(await stage().reconcile()).toMatchObject({ clean: true });
  });

  it('S3 deletes failing: a deal-file delete happens whole or not at all, and a retry finishes it', async () => {
    const files = [1, 2, 3, 4, 5].map((n) => dealFile(61, 1, 800_000 + n));
    await seedDeals(stage(), {
      groups: [61],
      members: [{ groupId: 61, userId: USER, role: 'editor' }],
      deals: [{ groupId: 61, dealId: 1 }],
      files,
    });
    const before = await stage().stored();
    proxies().s3.setPlan(someOf(isS3Write('DELETE'), 1, [S3_INTERNAL_ERROR], 12));
    for (const file of files) {
      const response = await stage().request(`/api/v1/group/61/deal/1/file/${String(file.id)}`, {
        method: 'DELETE',
        as: USER,
      });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ detail: 'Internal Server Error' });
    }
    expect(await stage().stored()).toEqual(before);
    proxies().s3.setPlan(() => undefined);
    for (const file of files) {
      const response = await stage().request(`/api/v1/group/61/deal/1/file/${String(file.id)}`, {
        method: 'DELETE',
        as: USER,
      });
      expect(response.status).toBe(204);
    }
    const after = await stage().stored();
    expect(after.objects.filter((key) => key.startsWith('groups/61/'))).toEqual([]);
    expect(await stage().reconcile()).toMatchObject({ clean: true });
  });

  it('own files under faults: each rename and delete whole or not at all, and a retry finishes', async () => {
    const created = (await uploads('lifecycle-', 12)).filter((r) => r.status === 201);
    const ids = created.map((r) => r.id ?? 0);
    const lost = { ...DYNAMODB_INTERNAL_ERROR, afterForwarding: true };
    const lostS3 = { ...S3_INTERNAL_ERROR, afterForwarding: true };
    proxies().dynamodb.setPlan(
      someOf((call) => WRITES.has(call.operation ?? ''), 0.4, [DYNAMODB_INTERNAL_ERROR, lost], 15),
    );
    proxies().s3.setPlan(someOf(isS3Write('DELETE'), 0.5, [S3_INTERNAL_ERROR, lostS3], 16));
    const own = (id: number) => `/api/v1/user/me/file/${String(id)}`;
    const renamed = new Set<number>();
    const deleted = new Set<number>();
    for (const [i, id] of ids.entries()) {
      const patch = await stage().request(own(id), {
        method: 'PATCH',
        as: USER,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `renamed-${String(id)}.pdf` }),
      });
      expect([200, 500, 503]).toContain(patch.status);
      if (patch.status === 200) renamed.add(id);
      if (i % 2 === 0) continue;
      const removed = await stage().request(own(id), { method: 'DELETE', as: USER });
      expect([204, 500, 503]).toContain(removed.status);
      if (removed.status === 204) deleted.add(id);
    }
    proxies().dynamodb.setPlan(() => undefined);
    proxies().s3.setPlan(() => undefined);
    // Every file is whole or gone: a record with its bytes, or neither.
    const { items, objects } = await stage().stored();
    for (const id of ids) {
      const record = items.find(
        (i) => i.PK === `USER#${String(USER)}` && i.SK === `FILE#${String(id)}`,
      );
      const object = objects.includes(`users/${String(USER)}/files/${String(id)}`);
      expect(record === undefined ? 'gone' : 'recorded', String(id)).toBe(
        deleted.has(id) ? 'gone' : 'recorded',
      );
      if (record !== undefined) expect(object, String(id)).toBe(true);
      if (renamed.has(id) && record !== undefined)
        expect(record.name).toBe(`renamed-${String(id)}.pdf`);
    }
    // The deletes that failed finish when sent again.
    for (const id of ids.filter((id, i) => i % 2 === 1 && !deleted.has(id))) {
      const retried = await stage().request(own(id), { method: 'DELETE', as: USER });
      expect(retried.status).toBe(204);
    }
    expect(await stage().reconcile()).toMatchObject({ clean: true });
  });

  it('DynamoDB throttling: a 503 with Retry-After, or done; never half', async () => {
    const some = someOf(() => true, 0.45, [DYNAMODB_THROTTLED], 13);
    // The records of uploads named …7.pdf stay throttled through every retry: those must
    // answer 503 and leave nothing; the rest are throttled now and then.
    proxies().dynamodb.setPlan((call) =>
      /throttled-\d*7\.pdf/.test(call.body) ? DYNAMODB_THROTTLED : some(call),
    );
    const results = await uploads('throttled-', 32);
    for (const { status } of results) expect([201, 503]).toContain(status);
    expect(results.filter((r) => /7\.pdf$/.test(r.name)).map((r) => r.status)).toEqual([
      503, 503, 503,
    ]);
    const list = await stage().request('/api/v1/user/me/file', { as: USER });
    expect([200, 503]).toContain(list.status);
    if (list.status === 503) {
      expect(list.headers.get('retry-after')).toBe('1');
      expect(await list.json()).toEqual({ detail: 'Service Unavailable' });
    }
    const throttled = [...proxies().dynamodb.seen.values()].reduce((n, c) => n + c.failed, 0);
    expect(throttled).toBeGreaterThan(0);
    proxies().dynamodb.setPlan(() => undefined);
    await expectWholeOrNothing(results);
    expect(await stage().reconcile()).toMatchObject({ clean: true });
  });

  it('DynamoDB writes failing, or landing with their answer lost: nothing orphaned', async () => {
    const lost = { ...DYNAMODB_INTERNAL_ERROR, afterForwarding: true };
    const some = someOf(
      (call) => WRITES.has(call.operation ?? ''),
      0.4,
      [DYNAMODB_INTERNAL_ERROR, lost],
      14,
    );
    // Every write of the uploads named …7.pdf fails, whatever the retries: those must fail
    // whole. The rest fail now and then, or land and lose their answer.
    proxies().dynamodb.setPlan((call) =>
      /write-fault-\d*7\.pdf/.test(call.body) ? DYNAMODB_INTERNAL_ERROR : some(call),
    );
    const results = await uploads('write-fault-', 40);
    for (const { status } of results) expect([201, 500, 503]).toContain(status);
    expect(results.filter((r) => /7\.pdf$/.test(r.name)).map((r) => r.status)).toEqual([
      500, 500, 500, 500,
    ]);
    expect(proxies().dynamodb.seen.get('DynamoDB TransactWriteItems')?.failed).toBeGreaterThan(4);
    // Submissions of what was stored, under the same faults.
    const stored = results.filter((r) => r.status === 201);
    for (const { id } of stored.slice(0, 10)) {
      const response = await stage().request('/api/v1/user/me/file/notify', {
        method: 'POST',
        as: USER,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ file_ids: [id] }),
      });
      expect([202, 500, 503]).toContain(response.status);
    }
    proxies().dynamodb.setPlan(() => undefined);
    await expectWholeOrNothing(results);
    // Let the worker settle what was queued: a message whose claim failed comes back after
    // the queue's visibility timeout (30 s), as on SQS.
    let last: unknown;
    await expect
      .poll(
        async () => {
          last = await stage().reconcile();
          return (last as { clean: boolean }).clean;
        },
        { timeout: waitLimit(80_000), interval: 1_000 },
      )
      .toBe(true)
      .catch((error: unknown) => {
        throw new Error(`reconcile never came clean: ${JSON.stringify(last)}`, { cause: error });
      });
  });

  it('a webhook outage: every notification is sent once when it is back, none stuck', async () => {
    const [created] = (await uploads('outage-', 1)).filter((r) => r.status === 201);
    receiver.answerAlways({ status: 503, body: 'down' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await stage().request('/api/v1/user/me/file/notify', {
        method: 'POST',
        as: USER,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ file_ids: [created?.id], fund_name: `Fund ${String(i)}` }),
      });
      expect(response.status).toBe(202);
      ids.push(((await response.json()) as { notification_id: string }).notification_id);
    }
    await expect
      .poll(() => receiver.posts.length, { timeout: waitLimit(10_000) })
      .toBeGreaterThanOrEqual(5);
    receiver.answerAlways({ status: 200, body: 'ok' });
    for (const id of ids) {
      await expect
        .poll(
          async () =>
            (
              (await (
                await stage().request(`/api/v1/user/me/file/notify/${id}`, { as: USER })
              ).json()) as { status: string }
            ).status,
          { timeout: waitLimit(30_000), interval: 250 },
        )
        .toBe('sent');
    }
    const funds = receiver
      .delivered()
      .map((post) => JSON.stringify(post.payload).match(/Fund \d/)?.[0])
      .sort();
    expect(funds).toEqual(['Fund 0', 'Fund 1', 'Fund 2', 'Fund 3', 'Fund 4']);
    expect(await stage().reconcile()).toMatchObject({ clean: true });
  });
});
