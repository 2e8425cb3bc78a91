/**
 * The local object store answers `501 NotImplemented` to every subresource or query parameter
 * it does not implement, on every method, properly signed or presigned, and changes nothing
 * (ADR 0011; issue 53: a presigned UploadPart had replaced an object's bytes, a GET with
 * `uploadId` served it, a DELETE with `uploadId` deleted it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type OwnObjectStore, startOwnObjectStore } from '#test/support/own-object-store.ts';
import { rawAnswer, s3Refusal, signedS3Request } from '#test/support/signed-s3-request.ts';

const BUCKET = 'unimplemented';
const KEY = 'users/1/files/1';
let store: OwnObjectStore;
let s3: S3Client;

beforeAll(async () => {
  store = await startOwnObjectStore(BUCKET);
  ({ s3 } = store);
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: KEY, Body: 'the stored bytes' }));
  await s3.send(
    new PutObjectTaggingCommand({
      Bucket: BUCKET,
      Key: KEY,
      Tagging: { TagSet: [{ Key: 'kept', Value: 'yes' }] },
    }),
  );
});

afterAll(async () => {
  await store.stop();
});

/** Everything a request could change of the object: its bytes, ETag, version and tags. */
async function theObject() {
  const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: KEY }));
  const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: BUCKET, Key: KEY }));
  const bytes = await signedS3Request(store.server, { method: 'GET', path: `/${BUCKET}/${KEY}` });
  return { etag: head.ETag, versionId: head.VersionId, tags: tags.TagSet, bytes: bytes.body };
}

/** The refusal, naming the first query parameter the store does not implement. */
const notImplemented = (name: string, method: string) => {
  const refusal = s3Refusal(501, 'NotImplemented', `?${name} is not implemented`);
  return method === 'HEAD' ? { ...refusal, body: '' } : refusal;
};

/** Method, path, query, and the parameter the refusal names. */
const UNIMPLEMENTED: readonly [string, string, Record<string, string>, string][] = [
  // Multipart uploads, on the object.
  ['PUT', KEY, { partNumber: '1', uploadId: 'made-up' }, 'partNumber'],
  ['GET', KEY, { uploadId: 'made-up' }, 'uploadId'],
  ['DELETE', KEY, { uploadId: 'made-up' }, 'uploadId'],
  ['POST', KEY, { uploads: '' }, 'uploads'],
  ['POST', KEY, { uploadId: 'made-up' }, 'uploadId'],
  ['HEAD', KEY, { partNumber: '1' }, 'partNumber'],
  ['GET', KEY, { partNumber: '1' }, 'partNumber'],
  // Other subresources of an object.
  ['GET', KEY, { acl: '' }, 'acl'],
  ['PUT', KEY, { acl: '' }, 'acl'],
  ['GET', KEY, { attributes: '' }, 'attributes'],
  ['PUT', KEY, { retention: '' }, 'retention'],
  ['POST', KEY, { restore: '' }, 'restore'],
  ['PUT', KEY, { tagging: '', versionId: 'made-up' }, 'versionId'],
  ['DELETE', KEY, { tagging: '' }, 'tagging'],
  ['PUT', KEY, { 'made-up-parameter': 'x' }, 'made-up-parameter'],
  // And of the bucket.
  ['GET', '', { uploads: '' }, 'uploads'],
  ['GET', '', { 'list-type': '2', delimiter: '/' }, 'delimiter'],
  ['PUT', '', { versioning: '' }, 'versioning'],
  ['DELETE', '', { cors: '' }, 'cors'],
  ['POST', '', { delete: '', 'bypass-governance': '' }, 'bypass-governance'],
];

describe('what the local object store does not implement', () => {
  it('answers 501 to each, signed, and changes nothing', async () => {
    const before = await theObject();
    const answers = [];
    for (const [method, key, query] of UNIMPLEMENTED) {
      const path = key === '' ? `/${BUCKET}` : `/${BUCKET}/${key}`;
      const headers = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
      const answer = await signedS3Request(store.server, { method, path, query, headers });
      answers.push([method, query, answer]);
    }
    expect(answers).toEqual(
      UNIMPLEMENTED.map(([method, , query, named]) => [
        method,
        query,
        notImplemented(named, method),
      ]),
    );
    // A write, a delete or a tag would have changed the object for good: none did.
    expect(await theObject()).toEqual(before);
  });

  it('answers 501 to a presigned UploadPart, its bytes sent, and keeps the object', async () => {
    const before = await theObject();
    const url = await getSignedUrl(
      s3,
      new UploadPartCommand({ Bucket: BUCKET, Key: KEY, UploadId: 'made-up', PartNumber: 1 }),
      { expiresIn: 60 },
    );
    const answer = await rawAnswer(await fetch(url, { method: 'PUT', body: 'other bytes' }));
    expect(answer).toEqual(notImplemented('partNumber', 'PUT'));
    expect(await theObject()).toEqual(before);
  });

  it('answers 501 to a copy whose source names what it does not implement', async () => {
    const answer = await signedS3Request(store.server, {
      method: 'PUT',
      path: `/${BUCKET}/users/1/files/2`,
      headers: { 'x-amz-copy-source': `/${BUCKET}/${KEY}?partNumber=1` },
    });
    expect(answer).toEqual(notImplemented('partNumber', 'PUT'));
    expect(
      await signedS3Request(store.server, { method: 'HEAD', path: `/${BUCKET}/users/1/files/2` }),
    ).toMatchObject({ status: 404 });
  });
});
