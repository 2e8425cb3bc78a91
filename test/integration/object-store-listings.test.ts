/**
 * ListObjectsV2 on the local object store, as S3 answers it
 * (docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html): pages of at most
 * `MaxKeys` (1,000 at most) in UTF-8 key order, `KeyCount` the entries of the page,
 * `IsTruncated` and `NextContinuationToken` while entries are left, `ContinuationToken`
 * echoed; from after a `StartAfter` key (the access trail's digests are found by it).
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnObjectStore, startOwnObjectStore } from '#test/support/own-object-store.ts';
import {
  type ListObjectsV2CommandInput,
  type ListObjectsV2CommandOutput,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3';
import { listAllObjects } from '#shared/storage/aws/list-all-objects.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { s3Refusal, signedS3Request } from '#test/support/signed-s3-request.ts';

const BUCKET = 'list-v2';
const MANY = 1100;
let store: OwnObjectStore;
let s3: S3Client;

/** `many/0000` … `many/1099`: their order as names and as keys is the same. */
const manyKeys = Array.from({ length: MANY }, (_, i) => `many/${String(i).padStart(4, '0')}`);
/** Keys whose order as names differs from key order (`-` and `.` sort before `/`). */
const trickyKeys = ['tricky/a', 'tricky/a-1', 'tricky/a.b', 'tricky/a/b', 'tricky/a0', 'tricky/é'];

beforeAll(async () => {
  store = await startOwnObjectStore(BUCKET);
  ({ s3 } = store);
  const keys = [...manyKeys, ...trickyKeys, 'group/x/1', 'group/x/2', 'group/y', 'group/z/1'];
  // Straight into the store, past its front: what is under test is the listing, and 1,110
  // signed PUTs would cost the run seconds of CPU.
  const put = (key: string) =>
    store.server.store.put(BUCKET, key, Readable.from([Buffer.from(key)]), {
      headers: {},
      event: 'ObjectCreated:Put',
    });
  for (let start = 0; start < keys.length; start += 100) {
    await Promise.all(keys.slice(start, start + 100).map(put));
  }
}, waitLimit(60_000));

afterAll(async () => {
  await store.stop();
});

/** Every page the SDK's paginator reads, as the fields S3 answers. */
async function pages(input: Omit<ListObjectsV2CommandInput, 'Bucket'>) {
  const answers: ListObjectsV2CommandOutput[] = [];
  for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: BUCKET, ...input })) {
    answers.push(page);
  }
  return answers.map((page) => ({
    keys: (page.Contents ?? []).map((object) => object.Key),
    prefixes: (page.CommonPrefixes ?? []).map((common) => common.Prefix),
    KeyCount: page.KeyCount,
    MaxKeys: page.MaxKeys,
    IsTruncated: page.IsTruncated,
    ContinuationToken: page.ContinuationToken,
    NextContinuationToken: page.NextContinuationToken,
    StartAfter: page.StartAfter,
    Prefix: page.Prefix,
  }));
}

/** The fields of a page, tokens aside (they are opaque). */
const fields = (page: Awaited<ReturnType<typeof pages>>[number]) => ({
  keys: page.keys.length,
  KeyCount: page.KeyCount,
  MaxKeys: page.MaxKeys,
  IsTruncated: page.IsTruncated,
  sentToken: page.ContinuationToken !== undefined,
  nextToken: page.NextContinuationToken !== undefined,
  StartAfter: page.StartAfter,
  Prefix: page.Prefix,
});

describe('ListObjectsV2 on the local object store', () => {
  it('pages 1,100 keys by 1,000, the second page resuming where the first stopped', async () => {
    const answers = await pages({ Prefix: 'many/' });
    expect(answers.map(fields)).toEqual([
      {
        keys: 1000,
        KeyCount: 1000,
        MaxKeys: 1000,
        IsTruncated: true,
        sentToken: false,
        nextToken: true,
        StartAfter: undefined,
        Prefix: 'many/',
      },
      {
        keys: 100,
        KeyCount: 100,
        MaxKeys: 1000,
        IsTruncated: false,
        sentToken: true,
        nextToken: false,
        StartAfter: undefined,
        Prefix: 'many/',
      },
    ]);
    // A page echoes the token it was sent, the one the page before gave.
    expect(answers[1]?.ContinuationToken).toBe(answers[0]?.NextContinuationToken);
    expect(answers.flatMap((page) => page.keys)).toEqual(manyKeys);

    // The whole bucket, through the production listing: every key once, in S3's order.
    const listed: (string | undefined)[] = [];
    for await (const page of listAllObjects(s3, BUCKET)) listed.push(...page.map((o) => o.Key));
    expect(listed).toHaveLength(MANY + trickyKeys.length + 4);
    expect(listed).toEqual(
      [...listed].sort((a, b) => Buffer.compare(Buffer.from(a ?? ''), Buffer.from(b ?? ''))),
    );
  });

  it('pages by a small MaxKeys, and by none', async () => {
    const answers = await pages({ Prefix: 'many/00', MaxKeys: 7 });
    expect(answers).toHaveLength(15);
    expect(answers.slice(0, 14).map((page) => [page.KeyCount, page.IsTruncated])).toEqual(
      Array.from({ length: 14 }, () => [7, true]),
    );
    expect(answers.slice(14).map(fields)).toEqual([
      {
        keys: 2,
        KeyCount: 2,
        MaxKeys: 7,
        IsTruncated: false,
        sentToken: true,
        nextToken: false,
        StartAfter: undefined,
        Prefix: 'many/00',
      },
    ]);
    expect(answers.flatMap((page) => page.keys)).toEqual(manyKeys.slice(0, 100));

    // Nothing asked for: nothing listed, and nothing left out.
    const none = await pages({ Prefix: 'many/', MaxKeys: 0 });
    expect(none.map(fields)).toEqual([
      {
        keys: 0,
        KeyCount: 0,
        MaxKeys: 0,
        IsTruncated: false,
        sentToken: false,
        nextToken: false,
        StartAfter: undefined,
        Prefix: 'many/',
      },
    ]);
  });

  it('lists keys in UTF-8 binary order, one at a time too', async () => {
    const answers = await pages({ Prefix: 'tricky/', MaxKeys: 1 });
    expect(answers.flatMap((page) => page.keys)).toEqual([
      'tricky/a',
      'tricky/a-1',
      'tricky/a.b',
      'tricky/a/b',
      'tricky/a0',
      'tricky/é',
    ]);
    expect(answers.map((page) => page.IsTruncated)).toEqual([true, true, true, true, true, false]);
  });

  it('lists from after a StartAfter key, present or not, and its pages go on from there', async () => {
    const after = await pages({ Prefix: 'many/', StartAfter: 'many/1089', MaxKeys: 6 });
    expect(after.map((page) => [page.keys.length, page.IsTruncated])).toEqual([
      [6, true],
      [4, false],
    ]);
    expect(after.flatMap((page) => page.keys)).toEqual(manyKeys.slice(1090));
    // A key that is not there starts it where it would sort; past the last, nothing.
    const between = await pages({ Prefix: 'tricky/', StartAfter: 'tricky/a/a' });
    expect(between.flatMap((page) => page.keys)).toEqual(['tricky/a/b', 'tricky/a0', 'tricky/é']);
    expect((await pages({ Prefix: 'many/', StartAfter: 'many/~' })).map(fields)).toEqual([
      expect.objectContaining({ keys: 0, IsTruncated: false }),
    ]);
  });

  it('answers 501 to a delimiter or an encoding type, which the store does not implement', async () => {
    for (const query of [{ delimiter: '/' }, { 'encoding-type': 'url' }] as Record<
      string,
      string
    >[]) {
      expect(
        await signedS3Request(store.server, {
          method: 'GET',
          path: `/${BUCKET}`,
          query: { 'list-type': '2', ...query },
        }),
      ).toEqual(
        s3Refusal(501, 'NotImplemented', `?${Object.keys(query)[0] ?? ''} is not implemented`),
      );
    }
  });
});
