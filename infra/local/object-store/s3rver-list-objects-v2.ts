import { createRequire } from 'node:module';
import type S3rver from 's3rver';
import type { FilesystemStore } from 's3rver';
import { s3Error } from './s3rver-errors.ts';
import { keysUnder, type Listed, objectsOf, pageOf } from './s3rver-key-listing.ts';

/**
 * ListObjectsV2 as S3 answers it. s3rver's own answer breaks past one page: it makes its
 * continuation token with a DES cipher, which Node 24's OpenSSL 3 no longer has, so a
 * truncated listing answers 500. It also lists in folder order rather than key order, leaves
 * common prefixes out of `KeyCount` and `MaxKeys`, and drops `StartAfter` when a token is sent.
 *
 * Here, as the ListObjectsV2 reference has it
 * (docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html): keys in UTF-8 binary
 * order; at most `max-keys` (1,000 at most, the default) entries, a common prefix counting as
 * one; `KeyCount` the entries returned; `IsTruncated` true only when another entry is left,
 * with an opaque `NextContinuationToken` that resumes after the last entry;
 * `ContinuationToken` and `StartAfter` echoed when sent, the token taking precedence.
 */

type Query = Record<string, string | string[] | undefined>;

interface KoaContext {
  method: string;
  path: string;
  query: Query;
  store: FilesystemStore & { getBucket(bucket: string): Promise<unknown> };
  status: number;
  body: unknown;
}

type Middleware = (context: KoaContext, next: () => Promise<void>) => Promise<void>;

const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';
const MOST_KEYS = 1000;

const fromS3rver = createRequire(import.meta.url);

/** s3rver's account, which its other listings name as the owner. */
const { DUMMY_ACCOUNT: owner } = fromS3rver('s3rver/lib/models/account.js') as {
  DUMMY_ACCOUNT: { id: number; displayName: string };
};

/** The query parameters s3rver routes to another bucket operation (its own list). */
const { METHODS: OTHER_OPERATIONS } = fromS3rver('s3rver/lib/controllers/bucket.js') as {
  METHODS: readonly string[];
};

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

const invalidArgument = (message: string, name: string, value?: string | number) =>
  s3Error('InvalidArgument', message, {
    ArgumentName: name,
    ...(value === undefined ? {} : { ArgumentValue: value }),
  });

/** s3rver's own checks and words for `max-keys`. */
function maxKeysOf(query: Query): number {
  const given = single(query['max-keys']);
  if (given === undefined) return MOST_KEYS;
  if (!/^-?\d+$/.test(given)) {
    throw invalidArgument(
      'Provided max-keys not an integer or within integer range',
      'max-keys',
      given,
    );
  }
  const maxKeys = Number(given);
  if (maxKeys < 0 || maxKeys > 2147483647) {
    throw invalidArgument(
      'Argument maxKeys must be an integer between 0 and 2147483647',
      'maxKeys',
      maxKeys,
    );
  }
  return maxKeys;
}

/** The token names the bucket and the last entry of its page; S3's is as opaque. */
const tokenFor = (bucket: string, last: Listed) =>
  Buffer.from(JSON.stringify({ bucket, ...last })).toString('base64');

function resumePointOf(bucket: string, token: string): Listed {
  const incorrect = () =>
    invalidArgument('The continuation token provided is incorrect', 'continuation-token');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    throw incorrect();
  }
  if (typeof decoded !== 'object' || decoded === null) throw incorrect();
  const { bucket: named, key, commonPrefix } = decoded as Record<string, unknown>;
  if (named !== bucket) throw incorrect();
  if (typeof key === 'string') return { key };
  if (typeof commonPrefix === 'string') return { commonPrefix };
  throw incorrect();
}

/** `encoding-type=url`: each name URL-encoded, its `/` kept. */
const urlEncoded = (name: string) => encodeURIComponent(name).replaceAll('%2F', '/');

const listObjectsV2: Middleware = async (context, next) => {
  const bucket = /^\/([^/]+)\/?$/.exec(context.path)?.[1];
  const { query } = context;
  if (
    context.method !== 'GET' ||
    bucket === undefined ||
    single(query['list-type']) !== '2' ||
    OTHER_OPERATIONS.some((name) => name in query)
  ) {
    await next();
    return;
  }
  if (!(await context.store.getBucket(bucket))) {
    await next(); // s3rver answers NoSuchBucket
    return;
  }
  if ('marker' in query) {
    throw invalidArgument('Marker unsupported with REST.GET.BUCKET in list-type=2', 'marker');
  }
  const encodingType = single(query['encoding-type']);
  if (encodingType !== undefined && encodingType !== 'url') {
    throw invalidArgument(
      'Invalid Encoding Method specified in Request',
      'encoding-type',
      encodingType,
    );
  }
  const encode = encodingType === 'url' ? urlEncoded : (name: string) => name;
  const maxKeys = maxKeysOf(query);
  const prefix = single(query.prefix) ?? '';
  const delimiter = single(query.delimiter) || undefined;
  const token = single(query['continuation-token']);
  const startAfter = single(query['start-after']);
  const after =
    token !== undefined
      ? resumePointOf(bucket, token)
      : startAfter
        ? { key: startAfter }
        : undefined;

  const { listed, isTruncated } = pageOf(await keysUnder(context.store, bucket, prefix), {
    prefix,
    maxKeys: Math.min(maxKeys, MOST_KEYS),
    ...(delimiter === undefined ? {} : { delimiter }),
    ...(after === undefined ? {} : { after }),
  });
  const fetchOwner = single(query['fetch-owner']) === 'true';
  const contents = (await objectsOf(context.store, bucket, listed)).map((object) => ({
    Key: encode(object.key),
    LastModified: object.lastModified,
    ETag: object.etag,
    Size: object.size,
    ...(fetchOwner ? { Owner: { ID: owner.id, DisplayName: owner.displayName } } : {}),
    StorageClass: 'STANDARD',
  }));
  const commonPrefixes = listed.flatMap((entry) =>
    'commonPrefix' in entry ? [{ Prefix: encode(entry.commonPrefix) }] : [],
  );
  const last = listed.at(-1);
  context.status = 200;
  // s3rver's XML middleware encodes a plain object as its XML.
  context.body = {
    ListBucketResult: {
      '@': { xmlns: S3_NAMESPACE },
      Name: bucket,
      Prefix: encode(prefix),
      ...(token === undefined ? {} : { ContinuationToken: token }),
      ...(startAfter === undefined ? {} : { StartAfter: encode(startAfter) }),
      ...(isTruncated && last !== undefined
        ? { NextContinuationToken: tokenFor(bucket, last) }
        : {}),
      KeyCount: contents.length + commonPrefixes.length,
      MaxKeys: maxKeys,
      ...(delimiter === undefined ? {} : { Delimiter: encode(delimiter) }),
      ...(encodingType === undefined ? {} : { EncodingType: encodingType }),
      IsTruncated: isTruncated,
      Contents: contents,
      CommonPrefixes: commonPrefixes,
    },
  };
};

/** Installs the listing in front of s3rver's router; call before `run()`. */
export function answerListObjectsV2(server: S3rver): void {
  const { middleware } = server;
  // The router is the last middleware; the XML encoder before it must wrap this answer too.
  middleware.splice(middleware.length - 1, 0, listObjectsV2);
}
