/**
 * Every recorded file has the SHA-256 of its bytes: worked out as a multipart upload is
 * stored, checked by the completion of a direct upload (against the digest the client
 * declared, if it did), and told to clients in `x-checksum-sha256` without a download.
 */
import { createHash } from 'node:crypto';
import { ListObjectVersionsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { DirectUploadTicket, UserFileBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

const START = '/api/v1/user/me/file/upload';
const complete = (id: number) => `${START}/${String(id)}/complete`;
const base64Sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');
/** What `sha256sum` prints for these bytes. */
const sha256sum = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const start = (as: number, body: Record<string, unknown>) =>
  stage().request(START, {
    method: 'POST',
    as,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'model.xlsx', type: 'financials', ...body }),
  });

async function downloaded(as: number, fileId: number) {
  const redirect = await stage().download(as, fileId);
  expect(redirect.status).toBe(302);
  const object = await fetch(redirect.headers.get('location') ?? '');
  return { redirect, bytes: new Uint8Array(await object.arrayBuffer()) };
}

async function versionsUnder(prefix: string): Promise<string[]> {
  const page = await stage().s3.send(
    new ListObjectVersionsCommand({ Bucket: stage().bucket, Prefix: prefix }),
  );
  return [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => String(v.Key));
}

describe('A multipart upload', () => {
  it('records the SHA-256 of its bytes, told by the file and its download', async () => {
    const content = Buffer.from('the bytes of a deal memo\n'.repeat(1000));
    const response = await stage().upload(1, uploadForm(content, { name: 'memo.txt' }));
    expect(response.status).toBe(201);
    const file = (await response.json()) as UserFileBody;
    // The contract's shape is unchanged: the digest travels in a header only.
    expect(Object.keys(file).sort()).toEqual(
      [
        'created_at',
        'filesize',
        'id',
        'is_archived',
        'location',
        'name',
        'type',
        'updated_at',
        'user_id',
      ].sort(),
    );

    const got = await stage().request(`/api/v1/user/me/file/${String(file.id)}`, { as: 1 });
    expect(await got.json()).toEqual(file);
    const digest = got.headers.get('x-checksum-sha256');
    expect(digest).toBe(base64Sha256(content));

    const { redirect, bytes } = await downloaded(1, file.id);
    expect(redirect.headers.get('x-checksum-sha256')).toBe(digest);
    expect(Buffer.from(digest ?? '', 'base64').toString('hex')).toBe(sha256sum(bytes));
  });
});

describe('A direct upload', () => {
  it('records the digest it worked out when the client declared none', async () => {
    const content = Buffer.alloc(70_000, 5);
    const ticket = (await (
      await start(2, { filesize: content.length })
    ).json()) as DirectUploadTicket;
    expect(ticket.fields).not.toHaveProperty('x-amz-checksum-sha256');
    expect(await postToSignedForm(ticket, content)).toBe(204);
    const completed = await stage().request(complete(ticket.id), { method: 'POST', as: 2 });
    expect(completed.status).toBe(201);
    const { redirect, bytes } = await downloaded(2, ticket.id);
    expect(redirect.headers.get('x-checksum-sha256')).toBe(base64Sha256(bytes));
  });

  it('signs the declared digest into the form, and records it once the bytes match', async () => {
    const content = Buffer.from('declared and sent');
    const sha256 = base64Sha256(content);
    const started = await start(3, { filesize: content.length, sha256 });
    expect(started.status).toBe(201);
    const ticket = (await started.json()) as DirectUploadTicket;
    // S3 itself refuses bytes with another digest (400 BadDigest): the policy signs the field.
    expect(ticket.fields).toMatchObject({
      'x-amz-checksum-algorithm': 'SHA256',
      'x-amz-checksum-sha256': sha256,
    });
    const policy = JSON.parse(Buffer.from(ticket.fields.Policy ?? '', 'base64').toString()) as {
      conditions: unknown[];
    };
    expect(policy.conditions).toEqual(
      expect.arrayContaining([{ 'x-amz-checksum-sha256': sha256 }]),
    );
    expect(await postToSignedForm(ticket, content)).toBe(204);
    const completed = await stage().request(complete(ticket.id), { method: 'POST', as: 3 });
    expect(completed.status).toBe(201);
    const got = await stage().request(`/api/v1/user/me/file/${String(ticket.id)}`, { as: 3 });
    expect(got.headers.get('x-checksum-sha256')).toBe(sha256);
  });

  it('refuses bytes whose digest is not the declared one: no file, no bytes, no reservation', async () => {
    const declared = base64Sha256(Buffer.from('what the client meant to send'));
    const ticket = (await (
      await start(4, { filesize: 100, sha256: declared })
    ).json()) as DirectUploadTicket;
    // Other bytes land under the form's key (on AWS the form's checksum already refuses
    // them; a signed PUT takes any).
    await stage().s3.send(
      new PutObjectCommand({
        Bucket: stage().bucket,
        Key: ticket.key,
        Body: Buffer.from('what was sent instead'),
      }),
    );
    const refusal = {
      detail: `The uploaded file's SHA-256 is not the declared sha256 ${declared}`,
    };
    for (let call = 0; call < 2; call++) {
      const completed = await stage().request(complete(ticket.id), { method: 'POST', as: 4 });
      expect({ status: completed.status, body: await completed.json() }).toEqual({
        status: 400,
        body: refusal,
      });
    }
    const items = (await stage().items()).filter((item) => item.PK === 'USER#4');
    // Only the refusal is kept (so every completer answers the same), among the user's last.
    expect(items.map((item) => item.SK)).toEqual(['REFUSED#uploads', 'USAGE']);
    expect(items[0]).toMatchObject({
      refusals: [{ id: ticket.id, status: 'rejected', rejection: 'digest_mismatch' }],
    });
    expect(items[1]).toMatchObject({ held_files: 0, held_bytes: 0, reserved_files: 0 });
    expect(await versionsUnder('uploads/4/')).toEqual([]);
    expect(await versionsUnder('users/4/')).toEqual([]);
  });

  it('refuses a declared sha256 that is not base64 of 32 bytes with 422, storing nothing', async () => {
    const before = await stage().stored();
    const response = await start(5, { filesize: 10, sha256: 'abc' });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      detail: [
        {
          type: 'string_pattern_mismatch',
          loc: ['body', 'sha256'],
          msg: "String should match pattern '^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$'",
          input: 'abc',
          ctx: { pattern: '^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$' },
        },
      ],
    });
    expect(await stage().stored()).toEqual(before);
  });
});
