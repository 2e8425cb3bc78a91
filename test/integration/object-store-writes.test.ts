import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnObjectStore, startOwnObjectStore } from '#test/support/own-object-store.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { answeredStatus } from '#test/support/signed-s3-request.ts';
import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

const BUCKET = 'atomic';
let store: OwnObjectStore;
let s3: S3Client;

beforeAll(async () => {
  store = await startOwnObjectStore(BUCKET);
  ({ s3 } = store);
});

afterAll(async () => {
  await store.stop();
});

const md5 = (bytes: Buffer) => `"${createHash('md5').update(bytes).digest('hex')}"`;

/** What a reader sees of the key: size and ETag from HEAD, bytes from GET, size from a listing. */
async function seen(key: string) {
  const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
  const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: key }));
  return {
    size: head.ContentLength,
    etag: head.ETag,
    bytes: Buffer.from((await got.Body?.transformToByteArray()) ?? []),
    listed: listed.Contents?.map((object) => [object.Key, object.Size]),
  };
}

const bytesOnDisk = () => store.bytesOnDisk();

describe('objects on the local stage, as on S3', () => {
  it('a read during a PUT sees the old object whole, then the new one', async () => {
    const key = 'users/1/a';
    const old = Buffer.from('the old bytes');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: old }));
    const before = await bytesOnDisk();

    const half = Buffer.alloc(256 * 1024, 1);
    const next = Buffer.concat([half, Buffer.alloc(256 * 1024, 2)]);
    // The local object store takes signed requests only: a presigned PUT streams as sent.
    const url = new URL(
      await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: key }), {
        expiresIn: 60,
      }),
    );
    const put = request(url, { method: 'PUT', headers: { 'content-length': next.length } });
    const answered = answeredStatus(put);
    put.write(half);
    await expect
      .poll(bytesOnDisk, { timeout: waitLimit(10_000), interval: 20 })
      .toBeGreaterThan(before);

    expect(await seen(key)).toEqual({
      size: old.length,
      etag: md5(old),
      bytes: old,
      listed: [[key, old.length]],
    });

    put.end(next.subarray(half.length));
    expect(await answered).toBe(200);
    expect(await seen(key)).toEqual({
      size: next.length,
      etag: md5(next),
      bytes: next,
      listed: [[key, next.length]],
    });
  });

  it('a copy brings the bytes, checksum and metadata of its source', async () => {
    const bytes = Buffer.from('copied');
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'uploads/1/b',
        Body: bytes,
        ContentType: 'text/csv',
      }),
    );
    await s3.send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'users/1/b',
        CopySource: `${BUCKET}/uploads/1/b`,
      }),
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'users/1/b' }));
    expect([head.ContentLength, head.ETag, head.ContentType]).toEqual([6, md5(bytes), 'text/csv']);
  });

  it('a PUT with If-None-Match: * writes a key that is free, and is refused (412) one that is taken', async () => {
    const put = (key: string, body: string) =>
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, IfNoneMatch: '*' }));
    await put('once/1', 'first');
    await expect(put('once/1', 'second')).rejects.toMatchObject({
      name: 'PreconditionFailed',
      $metadata: { httpStatusCode: 412 },
    });
    expect((await seen('once/1')).bytes.toString()).toBe('first');
    // Of two at once, one lands and the other is refused: the condition holds as bytes land.
    const raced = await Promise.allSettled([put('once/2', 'a'), put('once/2', 'b')]);
    expect(raced.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const landed = raced.findIndex((result) => result.status === 'fulfilled');
    expect((await seen('once/2')).bytes.toString()).toBe(['a', 'b'][landed]);
  });
});
