import type { BucketStore } from './bucket-store.ts';
import { escapeXml, type S3Error, s3Error } from './s3-errors.ts';

/**
 * ListObjectsV2 and ListObjectVersions as S3 answers them: keys in UTF-8 binary order, at
 * most 1,000 a page, rolled up at a delimiter (a common prefix counting as one entry),
 * continued by an opaque token or StartAfter. The bucket is unversioned, so each object is
 * its one version, `null`, as S3 lists an unversioned bucket's; a delete of version `null`
 * deletes the object, and the code that purges every version of a key runs unchanged.
 */
const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';
const MOST_KEYS = 1000;

/** A key, or keys rolled up under a common prefix. */
type Listed = { readonly key: string } | { readonly commonPrefix: string };

const inUtf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const element = (name: string, value: string | number | boolean) =>
  `<${name}>${escapeXml(String(value))}</${name}>`;

const invalidArgument = (message: string, name: string, value?: string): S3Error =>
  s3Error(400, 'InvalidArgument', message, {
    ArgumentName: name,
    ...(value === undefined ? {} : { ArgumentValue: value }),
  });

function pageOf(
  keys: readonly string[],
  options: { prefix: string; delimiter?: string; after?: Listed; maxKeys: number },
): { listed: Listed[]; isTruncated: boolean } {
  const { prefix, delimiter, after, maxKeys } = options;
  const listed: Listed[] = [];
  // Nothing asked for, nothing left out: S3 answers max-keys=0 untruncated.
  if (maxKeys <= 0) return { listed, isTruncated: false };
  let lastPrefix: string | undefined;
  for (const key of keys) {
    if (after !== undefined && !isAfter(key, after)) continue;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const entry: Listed =
      delimiter && cut !== -1 ? { commonPrefix: key.slice(0, cut + delimiter.length) } : { key };
    if ('commonPrefix' in entry) {
      if (entry.commonPrefix === lastPrefix) continue;
      lastPrefix = entry.commonPrefix;
    }
    if (listed.length === maxKeys) return { listed, isTruncated: true };
    listed.push(entry);
  }
  return { listed, isTruncated: false };
}

function isAfter(key: string, after: Listed): boolean {
  if ('key' in after) return inUtf8Order(key, after.key) > 0;
  return inUtf8Order(key, after.commonPrefix) > 0 && !key.startsWith(after.commonPrefix);
}

function maxKeysOf(query: URLSearchParams): number | S3Error {
  const given = query.get('max-keys');
  if (given === null) return MOST_KEYS;
  if (!/^\d+$/.test(given) || Number(given) > 2147483647) {
    return invalidArgument(
      'Provided max-keys not an integer or within integer range',
      'max-keys',
      given,
    );
  }
  return Number(given);
}

/** The token names the bucket and the last entry of its page; S3's is as opaque. */
const tokenFor = (bucket: string, last: Listed) =>
  Buffer.from(JSON.stringify({ bucket, ...last })).toString('base64');

function resumePointOf(bucket: string, token: string): Listed | undefined {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as unknown;
    if (typeof decoded !== 'object' || decoded === null) return undefined;
    const { bucket: named, key, commonPrefix } = decoded as Record<string, unknown>;
    if (named !== bucket) return undefined;
    if (typeof key === 'string') return { key };
    if (typeof commonPrefix === 'string') return { commonPrefix };
  } catch {
    // not a token of ours
  }
  return undefined;
}

/** `encoding-type=url`: each name URL-encoded, its `/` kept. */
const urlEncoded = (name: string) => encodeURIComponent(name).replaceAll('%2F', '/');

/** A ListObjectsV2 answer's XML, or S3's refusal of the query. */
export function listObjectsV2(
  store: BucketStore,
  bucket: string,
  query: URLSearchParams,
): string | S3Error {
  const encodingType = query.get('encoding-type');
  if (encodingType !== null && encodingType !== 'url') {
    return invalidArgument(
      'Invalid Encoding Method specified in Request',
      'encoding-type',
      encodingType,
    );
  }
  const encode = encodingType === 'url' ? urlEncoded : (name: string) => name;
  const maxKeys = maxKeysOf(query);
  if (typeof maxKeys !== 'number') return maxKeys;
  const prefix = query.get('prefix') ?? '';
  const delimiter = query.get('delimiter') || undefined;
  const token = query.get('continuation-token');
  const startAfter = query.get('start-after');
  const after =
    token !== null ? resumePointOf(bucket, token) : startAfter ? { key: startAfter } : undefined;
  if (token !== null && after === undefined) {
    return invalidArgument('The continuation token provided is incorrect', 'continuation-token');
  }
  const { listed, isTruncated } = pageOf(store.keys(bucket, prefix), {
    prefix,
    maxKeys: Math.min(maxKeys, MOST_KEYS),
    ...(delimiter === undefined ? {} : { delimiter }),
    ...(after === undefined ? {} : { after }),
  });
  const contents = listed.flatMap((entry) => {
    const object = 'key' in entry ? store.get(bucket, entry.key) : undefined;
    if (object === undefined) return [];
    return [
      '<Contents>' +
        element('Key', encode(object.key)) +
        element('LastModified', new Date(object.lastModified).toISOString()) +
        element('ETag', object.etag) +
        element('Size', object.size) +
        element('StorageClass', 'STANDARD') +
        '</Contents>',
    ];
  });
  const prefixes = listed.flatMap((entry) =>
    'commonPrefix' in entry
      ? [`<CommonPrefixes>${element('Prefix', encode(entry.commonPrefix))}</CommonPrefixes>`]
      : [],
  );
  const last = listed.at(-1);
  return (
    `<ListBucketResult xmlns="${S3_NAMESPACE}">` +
    element('Name', bucket) +
    element('Prefix', encode(prefix)) +
    (token === null ? '' : element('ContinuationToken', token)) +
    (startAfter === null ? '' : element('StartAfter', encode(startAfter))) +
    (isTruncated && last !== undefined
      ? element('NextContinuationToken', tokenFor(bucket, last))
      : '') +
    element('KeyCount', contents.length + prefixes.length) +
    element('MaxKeys', maxKeys) +
    (delimiter === undefined ? '' : element('Delimiter', encode(delimiter))) +
    (encodingType === null ? '' : element('EncodingType', encodingType)) +
    element('IsTruncated', isTruncated) +
    contents.join('') +
    prefixes.join('') +
    '</ListBucketResult>'
  );
}

/** A ListObjectVersions answer's XML: each object its one version, `null`. */
export function listObjectVersions(
  store: BucketStore,
  bucket: string,
  query: URLSearchParams,
): string {
  const prefix = query.get('prefix') ?? '';
  const keyMarker = query.get('key-marker') ?? '';
  const maxKeys = Math.min(Number(query.get('max-keys') ?? MOST_KEYS) || MOST_KEYS, MOST_KEYS);
  const { listed, isTruncated } = pageOf(store.keys(bucket, prefix), {
    prefix,
    maxKeys,
    ...(keyMarker === '' ? {} : { after: { key: keyMarker } }),
  });
  const last = listed.at(-1);
  const versions = listed.flatMap((entry) => {
    const object = 'key' in entry ? store.get(bucket, entry.key) : undefined;
    if (object === undefined) return [];
    return [
      '<Version>' +
        element('Key', object.key) +
        element('VersionId', 'null') +
        element('IsLatest', true) +
        element('LastModified', new Date(object.lastModified).toISOString()) +
        element('ETag', object.etag) +
        element('Size', object.size) +
        element('StorageClass', 'STANDARD') +
        '</Version>',
    ];
  });
  return (
    `<ListVersionsResult xmlns="${S3_NAMESPACE}">` +
    element('Name', bucket) +
    element('Prefix', prefix) +
    element('KeyMarker', keyMarker) +
    element('VersionIdMarker', '') +
    element('MaxKeys', maxKeys) +
    element('IsTruncated', isTruncated) +
    (isTruncated && last !== undefined && 'key' in last
      ? element('NextKeyMarker', last.key) + element('NextVersionIdMarker', 'null')
      : '') +
    versions.join('') +
    '</ListVersionsResult>'
  );
}
