/**
 * Versions on the local object store: each write gets an id of its own, answered as S3
 * answers it (`x-amz-version-id`), and GET, HEAD and a copy's source take a `versionId`. The
 * store keeps a key's current version only, so one written over answers as S3 answers a
 * version it does not have: 404 NoSuchVersion (docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectVersionsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { multipartBody } from '#test/support/multipart.ts';
import { type OwnObjectStore, startOwnObjectStore } from '#test/support/own-object-store.ts';

const BUCKET = 'versions';
let store: OwnObjectStore;
let s3: S3Client;

beforeAll(async () => {
  store = await startOwnObjectStore(BUCKET);
  ({ s3 } = store);
});

afterAll(async () => {
  await store.stop();
});

const put = async (key: string, body: string) =>
  (await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }))).VersionId;

const head = (key: string, versionId?: string) =>
  s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, VersionId: versionId }));

const read = async (key: string, versionId?: string) => {
  const got = await s3.send(
    new GetObjectCommand({ Bucket: BUCKET, Key: key, VersionId: versionId }),
  );
  return { versionId: got.VersionId, body: await got.Body?.transformToString() };
};

const versionsOf = async (key: string) =>
  (
    (await s3.send(new ListObjectVersionsCommand({ Bucket: BUCKET, Prefix: key }))).Versions ?? []
  ).map((version) => [version.Key, version.VersionId, version.IsLatest]);

const refusal = (code: string, status: number) => ({
  name: code,
  $metadata: { httpStatusCode: status },
});

describe('versions on the local object store', () => {
  it('gives each write a version id of its own, and answers it on every read', async () => {
    const first = await put('uploads/1/a', 'first');
    const second = await put('uploads/1/a', 'second');
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(second).toMatch(/^[0-9a-f]{32}$/);
    expect(second).not.toBe(first);
    expect((await head('uploads/1/a')).VersionId).toBe(second);
    expect(await read('uploads/1/a')).toEqual({ versionId: second, body: 'second' });
    expect(await read('uploads/1/a', second)).toEqual({ versionId: second, body: 'second' });
    expect(await versionsOf('uploads/1/a')).toEqual([['uploads/1/a', second, true]]);

    // The version written over is gone, as S3 answers a version it does not have.
    await expect(read('uploads/1/a', first)).rejects.toMatchObject(refusal('NoSuchVersion', 404));
    await expect(head('uploads/1/a', first)).rejects.toMatchObject(refusal('NotFound', 404));
    await expect(read('uploads/1/none', first)).rejects.toMatchObject(
      refusal('NoSuchVersion', 404),
    );

    // A form's object is a version too.
    const blobs = new S3BlobStore(s3, BUCKET);
    const form = await blobs.signUpload('uploads/1/b', {
      maxBytes: 10,
      contentType: 'text/plain',
      metadata: {},
      expiresInSeconds: 60,
    });
    const body = multipartBody([
      ...Object.entries(form.fields).map(([name, value]) => ({ name, value })),
      { name: 'file', value: Buffer.from('posted'), filename: 'b.txt' },
    ]);
    const posted = await fetch(form.url, {
      method: 'POST',
      headers: { 'content-type': body.contentType },
      body: body.body,
    });
    expect(posted.status).toBe(204);
    expect(posted.headers.get('x-amz-version-id')).toBe((await head('uploads/1/b')).VersionId);
  });

  it('copies the version named, with its SHA-256, or nothing when it is gone', async () => {
    const old = await put('uploads/2/a', 'the old bytes');
    const current = await put('uploads/2/a', 'the new bytes');
    const copied = await s3.send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'users/2/a',
        CopySource: `${BUCKET}/uploads/2/a?versionId=${current ?? ''}`,
        ChecksumAlgorithm: 'SHA256',
      }),
    );
    expect(copied.CopyObjectResult?.ChecksumSHA256).toBe(
      createHash('sha256').update('the new bytes').digest('base64'),
    );
    expect(copied.VersionId).toBe((await head('users/2/a')).VersionId);
    expect(copied.VersionId).not.toBe(current);
    expect(await read('users/2/a')).toMatchObject({ body: 'the new bytes' });

    await expect(
      s3.send(
        new CopyObjectCommand({
          Bucket: BUCKET,
          Key: 'users/2/b',
          CopySource: `${BUCKET}/uploads/2/a?versionId=${old ?? ''}`,
        }),
      ),
    ).rejects.toMatchObject(refusal('NoSuchVersion', 404));
    expect(await versionsOf('users/2/b')).toEqual([]);

    // The S3 adapter reads the same: a digest or a copy of a version gone is a change.
    const blobs = new S3BlobStore(s3, BUCKET);
    await expect(blobs.digest('uploads/2/a', { versionId: old ?? '' })).rejects.toThrow(
      'The object under uploads/2/a changed',
    );
    await expect(blobs.copy('uploads/2/a', 'users/2/c', { versionId: old ?? '' })).rejects.toThrow(
      'The object under uploads/2/a changed',
    );
    expect(await versionsOf('users/2/c')).toEqual([]);
  });

  it('deletes a version only while it is the current one', async () => {
    const old = await put('uploads/3/a', 'old');
    const current = await put('uploads/3/a', 'current');
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'uploads/3/a', VersionId: old }));
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: BUCKET,
        Delete: { Objects: [{ Key: 'uploads/3/a', VersionId: old }] },
      }),
    );
    expect(await versionsOf('uploads/3/a')).toEqual([['uploads/3/a', current, true]]);
    await s3.send(
      new DeleteObjectsCommand({
        Bucket: BUCKET,
        Delete: { Objects: [{ Key: 'uploads/3/a', VersionId: current }] },
      }),
    );
    expect(await versionsOf('uploads/3/a')).toEqual([]);
  });
});
