/**
 * A user's own files after upload: PATCH renames and (un)archives, DELETE removes for good,
 * and `admin user erase` removes everything of a user's. S3 sits behind a fault proxy, so a
 * delete whose bytes will not go can be shown to keep its record.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { attachmentDisposition } from '#shared/blobs/adapters/content-disposition.ts';
import { type FaultProxy, S3_INTERNAL_ERROR, startFaultProxy } from '#test/support/fault-proxy.ts';
import { eventually } from '#test/support/eventually.ts';
import { expectRefused as refused } from '#test/support/expect-refused.ts';
import {
  type DirectUploadTicket,
  missingError,
  NOT_FOUND,
  type UserFileBody,
  validationBody,
} from '#test/support/fastapi-bodies.ts';
import { multipartBody, uploadForm } from '#test/support/multipart.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { useTestStage } from '#test/support/test-stage.ts';

let s3Proxy: FaultProxy | undefined;
const stage = useTestStage(() => ({
  handlerEndpoints: async (real) => {
    s3Proxy = await startFaultProxy(real.s3);
    return { dynamodb: real.dynamodb, s3: s3Proxy.url };
  },
}));
const proxy = () => {
  if (s3Proxy === undefined) throw new Error('The proxy starts with the stage');
  return s3Proxy;
};
afterAll(async () => {
  await s3Proxy?.close();
});
beforeEach(() => {
  proxy().setPlan(() => undefined);
});

const LIST = '/api/v1/user/me/file';
const own = (id: number | string) => `${LIST}/${id}`;
const JSON_HEADERS = { 'content-type': 'application/json' };

const expectRefused = (send: () => Promise<Response>, status: number, body: unknown) =>
  refused(stage(), send, status, body);

async function upload(as: number, name = 'deck.pdf', headers: Record<string, string> = {}) {
  const response = await stage().upload(as, uploadForm(`bytes of ${name}`, { name }), headers);
  expect(response.status).toBe(201);
  return (await response.json()) as UserFileBody;
}

const patch = (as: number, id: number | string, body: string) =>
  stage().request(own(id), { method: 'PATCH', as, headers: JSON_HEADERS, body });
const remove = (as: number, id: number | string) =>
  stage().request(own(id), { method: 'DELETE', as });

async function listed(as: number): Promise<UserFileBody[]> {
  const response = await stage().request(LIST, { as });
  expect(response.status).toBe(200);
  return (await response.json()) as UserFileBody[];
}

describe('PATCH /api/v1/user/me/file/{file_id}', () => {
  it('archives and unarchives; an archived file stays in the list', async () => {
    const file = await upload(1);
    const archived = await patch(1, file.id, '{"is_archived":true}');
    expect(archived.status).toBe(200);
    const body = (await archived.json()) as UserFileBody;
    expect(body).toEqual({ ...file, is_archived: true, updated_at: expect.any(String) as string });
    expect(Date.parse(body.updated_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(file.created_at ?? ''),
    );
    expect((await listed(1)).find((f) => f.id === file.id)).toEqual(body);

    const back = await patch(1, file.id, '{"is_archived":false}');
    expect(back.status).toBe(200);
    const unarchived = (await back.json()) as UserFileBody;
    expect(unarchived.is_archived).toBe(false);
    expect((unarchived.updated_at ?? '') >= (body.updated_at ?? '')).toBe(true);
    expect((await listed(1)).find((f) => f.id === file.id)?.is_archived).toBe(false);
  });

  it('renames, keeping the name exactly as given, and downloads under it', async () => {
    const file = await upload(2, 'draft.pdf');
    const name = '  Q3 deck (final) — ✓.pdf ';
    const response = await patch(2, file.id, JSON.stringify({ name }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ...file,
      name,
      updated_at: expect.any(String) as string,
    });
    const download = await stage().download(2, file.id);
    expect(download.status).toBe(302);
    const link = new URL(download.headers.get('location') ?? '');
    expect(link.searchParams.get('response-content-disposition')).toBe(attachmentDisposition(name));
  });

  it('changes nothing, and writes nothing, for an empty object, the same values or unknown fields', async () => {
    const file = await upload(3);
    const before = await stage().stored();
    for (const body of [
      '{}',
      JSON.stringify({ name: file.name, is_archived: false }),
      '{"id":5,"user_id":4,"filesize":1,"location":"s3://elsewhere/x","created_at":"x","type":"other"}',
    ]) {
      const response = await patch(3, file.id, body);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(file);
    }
    expect(await stage().stored()).toEqual(before);
  });

  it("refuses bad bodies with FastAPI's 422, and stores nothing", async () => {
    const file = await upload(4);
    const boolError = (input: unknown) => ({
      type: 'bool_parsing',
      loc: ['body', 'is_archived'],
      msg: 'Input should be a valid boolean, unable to interpret input',
      input,
    });
    await expectRefused(
      () => patch(4, file.id, '{"is_archived":"maybe"}'),
      422,
      validationBody(boolError('maybe')),
    );
    await expectRefused(
      () => patch(4, file.id, '{"name":"","is_archived":2}'),
      422,
      validationBody(boolError(2), {
        type: 'string_too_short',
        loc: ['body', 'name'],
        msg: 'String should have at least 1 character',
        input: '',
        ctx: { min_length: 1 },
      }),
    );
    await expectRefused(
      () => patch(4, file.id, '{"name":null}'),
      422,
      validationBody({
        type: 'string_type',
        loc: ['body', 'name'],
        msg: 'Input should be a valid string',
        input: null,
      }),
    );
    await expectRefused(
      () => stage().request(own(file.id), { method: 'PATCH', as: 4 }),
      422,
      validationBody(missingError(['body'])),
    );
    await expectRefused(
      () => patch(4, 'x', '[]'),
      422,
      validationBody(
        {
          type: 'int_parsing',
          loc: ['path', 'file_id'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'x',
        },
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: [],
        },
      ),
    );
  });
});

describe('DELETE /api/v1/user/me/file/{file_id}', () => {
  it("answers 404 for another user's file and an unknown id, on both routes, and 422 for a fractional id, changing nothing", async () => {
    const file = await upload(5);
    await expectRefused(() => patch(6, file.id, '{"is_archived":true}'), 404, NOT_FOUND);
    await expectRefused(() => remove(6, file.id), 404, NOT_FOUND);
    await expectRefused(() => patch(5, 987_654_321, '{}'), 404, NOT_FOUND);
    await expectRefused(() => remove(5, 987_654_321), 404, NOT_FOUND);
    await expectRefused(
      () => remove(5, '1.5'),
      422,
      validationBody({
        type: 'int_parsing',
        loc: ['path', 'file_id'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: '1.5',
      }),
    );
  });

  it('removes the record and the bytes: gone from the list and downloads, a second delete 404s', async () => {
    const kept = await upload(7, 'kept.pdf');
    const file = await upload(7, 'gone.pdf');
    const response = await remove(7, file.id);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect((await listed(7)).map((f) => f.id)).toEqual([kept.id]);
    const download = await stage().download(7, file.id);
    expect(download.status).toBe(404);
    await expectRefused(() => remove(7, file.id), 404, NOT_FOUND);
    await expectRefused(() => patch(7, file.id, '{}'), 404, NOT_FOUND);
    const { objects, items } = await stage().stored();
    expect(objects).toContain(`users/7/files/${kept.id}`);
    expect(objects).not.toContain(`users/7/files/${file.id}`);
    expect(items.filter((item) => item.PK === 'USER#7').map((item) => item.SK)).toEqual([
      `FILE#${kept.id}`,
      'USAGE',
    ]);
    // The delete took the file out of the usage in the same transaction.
    expect(items.find((item) => item.PK === 'USER#7' && item.SK === 'USAGE')).toMatchObject({
      held_files: 1,
      held_bytes: kept.filesize,
    });
  });

  it('keeps the record when the bytes will not go, answers the error, and a retry finishes', async () => {
    const file = await upload(8);
    const before = await stage().stored();
    // S3 fails every delete (after the SDK's own retries): the record comes back.
    proxy().setPlan((call) => (call.method === 'DELETE' ? S3_INTERNAL_ERROR : undefined));
    const failed = await remove(8, file.id);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ detail: 'Internal Server Error' });
    expect(await stage().stored()).toEqual(before);
    expect((await listed(8)).map((f) => f.id)).toEqual([file.id]);

    proxy().setPlan(() => undefined);
    expect((await remove(8, file.id)).status).toBe(204);
    expect(await listed(8)).toEqual([]);
    expect((await stage().stored()).objects).not.toContain(`users/8/files/${file.id}`);
  });

  it('cancels a direct upload still waiting: it can no longer complete, and late bytes are dropped', async () => {
    const started = await stage().request(`${LIST}/upload`, {
      method: 'POST',
      as: 9,
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: 5 }),
    });
    const ticket = (await started.json()) as DirectUploadTicket;
    expect((await remove(9, ticket.id)).status).toBe(204);
    await expectRefused(
      () => stage().request(`${LIST}/upload/${ticket.id}/complete`, { method: 'POST', as: 9 }),
      404,
      NOT_FOUND,
    );
    // The form still works until it expires: its bytes reach S3 and are deleted.
    const form = multipartBody([
      ...Object.entries(ticket.fields).map(([name, value]) => ({ name, value })),
      { name: 'file', value: Buffer.from('bytes'), filename: 'model.xlsx' },
    ]);
    const posted = await fetch(ticket.url, {
      method: 'POST',
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(posted.status).toBeLessThan(300);
    await eventually(async () =>
      (await stage().stored()).objects.every((key) => !key.includes('/9/')),
    );
    expect(await listed(9)).toEqual([]);
    await expectRefused(() => remove(9, ticket.id), 404, NOT_FOUND);
  });
});

async function admin(...args: string[]) {
  const { code, out, err } = await stage().admin(args);
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out) as Record<string, unknown>;
}

const erase21 = () => admin('user', 'erase', '--user', '21', '--settle-seconds', '0');

describe('npm run admin -- user erase', () => {
  it('reports with --dry-run, then removes everything of one user and nothing of another', async () => {
    // User 21: two files (one sent with an Idempotency-Key), a waiting direct upload, a
    // notification, and memberships in two groups; one of their files is also a deal file.
    const first = await upload(21, 'one.pdf', { 'idempotency-key': 'erase-1' });
    await upload(21, 'two.pdf');
    const started = await stage().request(`${LIST}/upload`, {
      method: 'POST',
      as: 21,
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: 'big.bin', type: 'other', filesize: 9 }),
    });
    expect(started.status).toBe(201);
    const notified = await stage().request(`${LIST}/notify`, {
      method: 'POST',
      as: 21,
      headers: JSON_HEADERS,
      body: JSON.stringify({ file_ids: [first.id] }),
    });
    expect(notified.status).toBe(202);
    // The worker settles the notification on its own: wait, so it changes nothing later.
    const { notification_id: notificationId } = (await notified.json()) as {
      notification_id: string;
    };
    await eventually(async () => {
      const status = await stage().request(`${LIST}/notify/${notificationId}`, { as: 21 });
      return ((await status.json()) as { status: string }).status === 'sent';
    });
    await seedDeals(stage(), {
      groups: [21, 22],
      members: [
        { groupId: 21, userId: 21, role: 'editor' },
        { groupId: 22, userId: 21, role: 'viewer' },
        { groupId: 21, userId: 22, role: 'viewer' },
      ],
      deals: [{ groupId: 21, dealId: 1 }],
    });
    // A deal gets only a file its scan cleared: wait for the verdict.
    expect((await stage().download(21, first.id)).status).toBe(302);
    await admin(
      'deal-file',
      'add',
      '--group',
      '21',
      '--deal',
      '1',
      '--from-user-file',
      String(first.id),
      '--user',
      '21',
    );
    const other = await upload(22, 'theirs.pdf');
    // Its verdict lands on its own: wait, so it changes nothing later.
    expect((await stage().download(22, other.id)).status).toBe(302);

    const before = await stage().stored();
    const summary = {
      user_id: 21,
      files: 2,
      pending_uploads: 1,
      notifications: 1,
      idempotency_records: 1,
      // The sender's notify allowance (a token bucket) and their usage go with the rest.
      other_items: 2,
      object_versions: 2,
      memberships: [
        { group_id: 21, role: 'editor' },
        { group_id: 22, role: 'viewer' },
      ],
    };
    expect(await admin('user', 'erase', '--user', '21', '--dry-run')).toEqual({
      ...summary,
      dry_run: true,
    });
    expect(await stage().stored()).toEqual(before);

    expect(await erase21()).toEqual({ ...summary, dry_run: false });
    const after = await stage().stored();
    const mentions21 = (item: Record<string, unknown>) =>
      /USER#21$/.test(String(item.PK)) || String(item.SK) === 'MEMBER#21';
    // But for the marker that refuses their id any new item.
    const marker = {
      PK: 'USER#21',
      SK: 'ERASED',
      entity: 'ErasureMarker',
      erased_at: expect.any(String) as string,
    };
    expect(after.items.filter(mentions21)).toEqual([marker]);
    expect(after.objects.filter((key) => /^(users|uploads)\/21\//.test(key))).toEqual([]);
    // Everything else is as it was: user 22's file and membership, the groups, the deal file.
    expect(after.items.filter((item) => item.SK !== 'ERASED')).toEqual(
      before.items.filter((item) => !mentions21(item)),
    );
    expect(after.objects).toEqual(
      before.objects.filter((key) => !/^(users|uploads)\/21\//.test(key)),
    );
    expect(after.objects).toContain(`users/22/files/${other.id}`);
    expect(after.items.some((item) => item.entity === 'DealFile')).toBe(true);
    expect(await listed(21)).toEqual([]);
    expect((await stage().reconcile()).clean).toBe(true);

    expect(await erase21()).toEqual({
      ...summary,
      dry_run: false,
      files: 0,
      pending_uploads: 0,
      notifications: 0,
      idempotency_records: 0,
      other_items: 0,
      object_versions: 0,
      memberships: [],
    });
  });
});
