import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patient } from '#test/support/patience.ts';
import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  ensureBucket,
  LOCAL_REGION,
  type RunningS3rver,
  s3ClientOptions,
  startS3rver,
} from '#infra/local/emulators.ts';

const BUCKET = 'atomic';
let directory: string;
let server: RunningS3rver;
let s3: S3Client;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 's3rver-atomic-'));
  server = await startS3rver({ directory });
  await ensureBucket(server.endpoint, BUCKET, server.credentials);
  s3 = new S3Client({
    ...s3ClientOptions(server.endpoint),
    region: LOCAL_REGION,
    credentials: server.credentials,
  });
});

afterAll(async () => {
  s3.destroy();
  await server.stop();
  await rm(directory, { recursive: true, force: true });
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

/** Bytes on disk under the bucket: they grow once s3rver has written part of a body. */
async function bytesOnDisk(): Promise<number> {
  const names = await readdir(join(directory, BUCKET), { recursive: true });
  const sizes = await Promise.all(names.map(async (name) => stat(join(directory, BUCKET, name))));
  return sizes.filter((entry) => entry.isFile()).reduce((sum, entry) => sum + entry.size, 0);
}

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
    const answered = new Promise<number>((resolve, reject) => {
      put.on('response', (response) => {
        response.resume();
        response.on('end', () => {
          resolve(response.statusCode ?? 0);
        });
      });
      put.on('error', reject);
    });
    put.write(half);
    await expect
      .poll(bytesOnDisk, { timeout: patient(10_000), interval: 20 })
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
});
