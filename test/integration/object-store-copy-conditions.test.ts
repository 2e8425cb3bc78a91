/**
 * CopyObject's conditions on its source, on the local object store as on S3
 * (docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html): a condition that fails
 * answers 412 PreconditionFailed and copies nothing.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnObjectStore, startOwnObjectStore } from '#test/support/own-object-store.ts';
import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { RunningObjectStore } from '#infra/local/stage/stand-ins.ts';
import { eventually } from '#test/support/eventually.ts';
import {
  answeredStatus,
  s3Refusal,
  signedS3Headers,
  signedS3Request,
} from '#test/support/signed-s3-request.ts';

const BUCKET = 'conditional-copy';
let store: OwnObjectStore;
let server: RunningObjectStore;
let s3: S3Client;

beforeAll(async () => {
  store = await startOwnObjectStore(BUCKET);
  ({ server, s3 } = store);
});

afterAll(async () => {
  await store.stop();
});

const put = async (key: string, body: string) =>
  (await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }))).ETag ?? '';

const bytesOf = async (key: string) => {
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
};

const exists = (key: string) =>
  s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    () => true,
    (error: unknown) => {
      if ((error as { name?: string }).name === 'NotFound') return false;
      throw error;
    },
  );

/** A copy of `source` to `target` with these condition headers, as sent and answered. */
const copyWith = (source: string, target: string, conditions: Record<string, string>) =>
  signedS3Request(server, {
    method: 'PUT',
    path: `/${BUCKET}/${target}`,
    headers: { 'x-amz-copy-source': `/${BUCKET}/${source}`, ...conditions },
  });

/** S3's answer to a condition that did not hold. */
const PRECONDITION_FAILED = s3Refusal(412, 'PreconditionFailed');

describe('a copy held to its source', () => {
  it('answers 412, copying nothing, when the source is no longer the ETag named', async () => {
    const first = await put('uploads/1/a', 'first');
    await put('uploads/1/a', 'other');

    expect(
      await copyWith('uploads/1/a', 'users/1/a', { 'x-amz-copy-source-if-match': first }),
    ).toEqual(PRECONDITION_FAILED);
    expect(await exists('users/1/a')).toBe(false);

    // The SDK reads it as S3's own PreconditionFailed.
    await expect(
      s3.send(
        new CopyObjectCommand({
          Bucket: BUCKET,
          Key: 'users/1/a',
          CopySource: `${BUCKET}/uploads/1/a`,
          CopySourceIfMatch: first,
        }),
      ),
    ).rejects.toMatchObject({
      name: 'PreconditionFailed',
      $metadata: { httpStatusCode: 412 },
    });
    expect(await exists('users/1/a')).toBe(false);

    // The ETag it has now, quoted or not, copies it.
    const second = await put('uploads/1/a', 'second');
    for (const [target, named] of [
      ['users/1/a', second],
      ['users/1/b', second.replaceAll('"', '')],
    ] as const) {
      const copied = await copyWith('uploads/1/a', target, { 'x-amz-copy-source-if-match': named });
      expect(copied.status).toBe(200);
      expect(await bytesOf(target)).toBe('second');
    }
  });

  it('judges the object a reader sees: not a PUT arriving, then the one landed', async () => {
    const old = await put('uploads/4/a', 'the old bytes');
    const before = await bytesOnDisk();
    const half = Buffer.alloc(256 * 1024, 1);
    const next = Buffer.concat([half, Buffer.alloc(256 * 1024, 2)]);
    const incoming = await putSlowly('uploads/4/a', half, next.length);
    await eventually(async () => (await bytesOnDisk()) > before);

    const during = await copyWith('uploads/4/a', 'users/4/during', {
      'x-amz-copy-source-if-match': old,
    });
    expect(during.status).toBe(200);
    expect(await bytesOf('users/4/during')).toBe('the old bytes');

    expect(await incoming.finish(next.subarray(half.length))).toBe(200);
    expect(
      await copyWith('uploads/4/a', 'users/4/after', { 'x-amz-copy-source-if-match': old }),
    ).toEqual(PRECONDITION_FAILED);
    expect(await exists('users/4/after')).toBe(false);
  });
});

const bytesOnDisk = () => store.bytesOnDisk();

/** A PUT of `length` bytes that sends `first` now and the rest on `finish`. */
async function putSlowly(key: string, first: Buffer, length: number) {
  const { url, headers } = await signedS3Headers(server, {
    method: 'PUT',
    path: `/${BUCKET}/${key}`,
    headers: { 'content-length': String(length), 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  });
  const put = request(url, { method: 'PUT', headers });
  const answered = answeredStatus(put);
  put.write(first);
  return {
    finish: async (rest: Buffer) => {
      put.end(rest);
      return answered;
    },
  };
}
