/**
 * Per-user storage quotas on a stage that allows 10 files and 10,000 bytes a user: usage is
 * changed in the same transaction as the record it counts, a direct upload reserves its
 * declared size, and nothing is stored for a refusal, whatever the concurrency.
 */
import { ListObjectVersionsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { toDirectUploadItem } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { expectRefused as refused } from '#test/support/expect-refused.ts';
import type { DirectUploadTicket, UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const MAX_FILES = 10;
const MAX_BYTES = 10_000;
const stage = useTestStage(() => ({
  settings: { MAX_FILES_PER_USER: MAX_FILES, MAX_BYTES_PER_USER: MAX_BYTES },
}));

const USAGE = '/api/v1/user/me/usage';
const START = '/api/v1/user/me/file/upload';
const JSON_HEADERS = { 'content-type': 'application/json' };

const expectRefused = (send: () => Promise<Response>, status: number, body: unknown) =>
  refused(stage(), send, status, body);

const refusal = (unit: 'files' | 'bytes', limit: number, held: number, asked: number) => ({
  detail: `Storage quota exceeded: ${String(limit)} ${unit} allowed, ${String(held)} in use, ${String(asked)} more asked`,
});

const upload = (as: number, size: number, name = 'deck.pdf') =>
  stage().upload(as, uploadForm(Buffer.alloc(size, 1), { name }));

async function uploaded(as: number, size: number): Promise<UserFileBody> {
  const response = await upload(as, size);
  expect(response.status).toBe(201);
  return (await response.json()) as UserFileBody;
}

const start = (as: number, filesize: number) =>
  stage().request(START, {
    method: 'POST',
    as,
    headers: JSON_HEADERS,
    body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize }),
  });

async function usage(as: number) {
  const response = await stage().request(USAGE, { as });
  expect(response.status).toBe(200);
  return response.json();
}

const usageOf = (files: number, bytes: number, reserved = { files: 0, bytes: 0 }) => ({
  files: { used: files, reserved: reserved.files, allowed: MAX_FILES },
  bytes: { used: bytes, reserved: reserved.bytes, allowed: MAX_BYTES },
});

/** Every object version the bucket keeps under a user's prefixes. */
async function versionsOf(userId: number): Promise<string[]> {
  const keys: string[] = [];
  for (const prefix of [`users/${String(userId)}/`, `uploads/${String(userId)}/`]) {
    const page = await stage().s3.send(
      new ListObjectVersionsCommand({ Bucket: stage().bucket, Prefix: prefix }),
    );
    for (const version of [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]) {
      keys.push(String(version.Key));
    }
  }
  return keys.sort();
}

describe('GET /api/v1/user/me/usage', () => {
  it('counts files and bytes as they are uploaded and deleted', async () => {
    expect(await usage(1)).toEqual(usageOf(0, 0));
    const first = await uploaded(1, 300);
    await uploaded(1, 200);
    expect(await usage(1)).toEqual(usageOf(2, 500));
    expect(
      (
        await stage().request(`/api/v1/user/me/file/${String(first.id)}`, {
          method: 'DELETE',
          as: 1,
        })
      ).status,
    ).toBe(204);
    expect(await usage(1)).toEqual(usageOf(1, 200));
  });

  it('counts files stored before usage was kept, the first time it is needed', async () => {
    // A record as an older release wrote it: no usage item beside it.
    const now = new Date().toISOString();
    await stage().put([
      {
        PK: 'USER#2',
        SK: 'FILE#990001',
        entity: 'UserFile',
        user_id: 2,
        id: 990001,
        name: 'old.pdf',
        type: 'deck',
        created_at: now,
        updated_at: null,
        is_archived: false,
        filesize: 4000,
        location: `s3://${stage().bucket}/users/2/files/990001`,
        file_created: `${now}#0000000000990001`,
      },
    ]);
    expect(await usage(2)).toEqual(usageOf(1, 4000));
    // And from then on it is kept: an upload over what is left is refused.
    await expectRefused(() => upload(2, 6001), 403, refusal('bytes', MAX_BYTES, 4000, 6001));
  });
});

describe('Uploads over the quota', () => {
  it('refuses the file over the files limit with 403, naming the limit, and stores nothing', async () => {
    for (let n = 0; n < MAX_FILES; n++) await uploaded(3, 10);
    await expectRefused(() => upload(3, 10), 403, refusal('files', MAX_FILES, MAX_FILES, 1));
    expect(await versionsOf(3)).toHaveLength(MAX_FILES);
  });

  it('refuses bytes over the bytes limit, and a file larger than the limit itself', async () => {
    await uploaded(4, 9_500);
    await expectRefused(() => upload(4, 501), 403, refusal('bytes', MAX_BYTES, 9_500, 501));
    expect(await usage(4)).toEqual(usageOf(1, 9_500));
    await uploaded(4, 500);
    await expectRefused(
      () => upload(5, MAX_BYTES + 1),
      403,
      refusal('bytes', MAX_BYTES, 0, MAX_BYTES + 1),
    );
    expect(await versionsOf(5)).toEqual([]);
  });

  it('refuses a first write over the limit without storing even the first count', async () => {
    // User 12 has never stored anything: the refusal comes before their usage is stored.
    await expectRefused(() => start(12, 10_001), 403, refusal('bytes', MAX_BYTES, 0, 10_001));
    expect((await stage().items()).filter((item) => item.PK === 'USER#12')).toEqual([]);
  });

  it('lets 100 concurrent uploads at the edge take exactly what is left, every 201 recorded', async () => {
    await uploaded(6, 100);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, n) => upload(6, 100, `race-${String(n)}.pdf`)),
    );
    const created: UserFileBody[] = [];
    for (const answer of answers) {
      if (answer.status === 201) {
        created.push((await answer.json()) as UserFileBody);
        continue;
      }
      expect(answer.status).toBe(403);
      expect(await answer.json()).toEqual(refusal('files', MAX_FILES, MAX_FILES, 1));
    }
    expect(created).toHaveLength(MAX_FILES - 1);
    const { items } = await stage().stored();
    const records = items.filter((item) => item.PK === 'USER#6' && item.entity === 'UserFile');
    expect(records).toHaveLength(MAX_FILES);
    const recorded = new Set(records.map((item) => item.id));
    for (const file of created) expect(recorded.has(file.id)).toBe(true);
    expect(await usage(6)).toEqual(usageOf(MAX_FILES, MAX_FILES * 100));
    // Refused bytes went, every version: only the recorded files' objects are left.
    expect(await versionsOf(6)).toEqual(
      records.map((item) => `users/6/files/${String(item.id)}`).sort(),
    );
  });
});

describe('Direct uploads reserve their declared size', () => {
  it('holds the reservation while the upload waits, and settles it to the real size', async () => {
    const started = await start(7, 6_000);
    expect(started.status).toBe(201);
    const ticket = (await started.json()) as DirectUploadTicket;
    expect(await usage(7)).toEqual(usageOf(0, 0, { files: 1, bytes: 6_000 }));
    // The reservation counts: a start or an upload over what is left is refused.
    await expectRefused(() => start(7, 4_001), 403, refusal('bytes', MAX_BYTES, 6_000, 4_001));
    await expectRefused(() => upload(7, 4_001), 403, refusal('bytes', MAX_BYTES, 6_000, 4_001));
    expect(await postToSignedForm(ticket, Buffer.alloc(5_000, 2))).toBe(204);
    const completed = await stage().request(`${START}/${String(ticket.id)}/complete`, {
      method: 'POST',
      as: 7,
    });
    expect(completed.status).toBe(201);
    expect(await usage(7)).toEqual(usageOf(1, 5_000));
  });

  it('refuses a start over the files limit, and gives a cancelled reservation back', async () => {
    for (let n = 0; n < MAX_FILES - 1; n++) await uploaded(8, 10);
    const started = await start(8, 100);
    expect(started.status).toBe(201);
    const ticket = (await started.json()) as DirectUploadTicket;
    await expectRefused(() => start(8, 100), 403, refusal('files', MAX_FILES, MAX_FILES, 1));
    const cancelled = await stage().request(`/api/v1/user/me/file/${String(ticket.id)}`, {
      method: 'DELETE',
      as: 8,
    });
    expect(cancelled.status).toBe(204);
    expect(await usage(8)).toEqual(usageOf(MAX_FILES - 1, (MAX_FILES - 1) * 10));
    expect((await start(8, 100)).status).toBe(201);
  });

  it('gives back a reservation that can no longer be completed, before refusing', async () => {
    const ticket = (await (await start(9, 9_000)).json()) as DirectUploadTicket;
    // Its form expired more than a day ago: it can no longer be completed.
    const waiting = (await stage().items()).find(
      (item) => item.PK === 'USER#9' && item.SK === `UPLOAD#${String(ticket.id)}`,
    );
    await stage().put([{ ...waiting, expires_at: '2026-01-01T00:00:00.000Z' }]);
    const again = await start(9, 9_000);
    expect(again.status).toBe(201);
    const items = (await stage().items()).filter((item) => item.PK === 'USER#9');
    expect(items.map((item) => item.SK)).toEqual([
      `UPLOAD#${String(((await again.json()) as DirectUploadTicket).id)}`,
      'USAGE',
    ]);
    expect(await usage(9)).toEqual(usageOf(0, 0, { files: 1, bytes: 9_000 }));
  });

  it('completes an upload started before quotas, which reserved nothing, as a new file', async () => {
    await uploaded(11, 100);
    // As an older release wrote it: no reservation, and its form took up to the limit.
    const now = Date.now();
    await stage().put([
      toDirectUploadItem({
        id: 990011,
        userId: 11,
        name: 'old.xlsx',
        type: 'financials',
        contentType: 'application/octet-stream',
        declaredSize: 10,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + 900_000).toISOString(),
        status: 'pending',
        reserved: false,
      }),
    ]);
    expect(await usage(11)).toEqual(usageOf(1, 100));
    await stage().s3.send(
      new PutObjectCommand({
        Bucket: stage().bucket,
        Key: 'uploads/11/990011',
        Body: Buffer.alloc(2_000, 4),
      }),
    );
    const completed = await stage().request(`${START}/990011/complete`, { method: 'POST', as: 11 });
    expect(completed.status).toBe(201);
    expect(await usage(11)).toEqual(usageOf(2, 2_100));
  });

  it('gives the reservation back when completion refuses the bytes', async () => {
    const ticket = (await (await start(10, 10)).json()) as DirectUploadTicket;
    // Bytes the form did not send (a signed PUT): more than declared.
    await stage().s3.send(
      new PutObjectCommand({
        Bucket: stage().bucket,
        Key: ticket.key,
        Body: Buffer.alloc(11, 3),
      }),
    );
    const completed = await stage().request(`${START}/${String(ticket.id)}/complete`, {
      method: 'POST',
      as: 10,
    });
    expect(completed.status).toBe(413);
    expect(await completed.json()).toEqual({
      detail: 'The uploaded file is larger than its declared filesize of 10 bytes',
    });
    expect(await usage(10)).toEqual(usageOf(0, 0));
    expect(await versionsOf(10)).toEqual([]);
  });
});
