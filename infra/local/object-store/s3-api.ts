import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AcceptedForm } from './s3-post-policy.ts';
import { Refused, type BucketStore, type StoredObject } from './bucket-store.ts';
import {
  contentSha256Mismatch,
  escapeXml,
  preconditionFailed,
  type S3Error,
  s3Error,
  sendS3Error,
} from './s3-errors.ts';
import { listObjectsV2, listObjectVersions } from './s3-listings.ts';
import { splitTarget } from './s3-request-auth.ts';

/**
 * The S3 operations the service, its tests, the operator CLI, the smoke check and the bench
 * call, on the local store, for a request the front has checked (object-store-front.ts):
 * CreateBucket, HeadBucket, Put/Get/Head/Copy/DeleteObject, DeleteObjects, ListObjectsV2,
 * ListObjectVersions and Get/PutObjectTagging. Another is answered 501 NotImplemented.
 */

/** The headers S3 keeps with an object and sends back with it. */
const KEPT_HEADERS = [
  'cache-control',
  'content-disposition',
  'content-encoding',
  'content-language',
  'content-type',
  'expires',
];
/** The query parameters of a GET that override the answer's headers (presigned downloads). */
const OVERRIDES = KEPT_HEADERS.map((name) => `response-${name}`);
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

const noSuchKey = (key: string) =>
  s3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
const noSuchBucket = (bucket: string) =>
  s3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const unquoted = (etag: string) => etag.trim().replace(/^"(.*)"$/, '$1');

/** The headers a PUT, a copy that replaces them, or a form's fields give an object. */
export function keptHeaders(given: Iterable<readonly [string, string]>): Record<string, string> {
  const kept: Record<string, string> = { 'content-type': 'binary/octet-stream' };
  for (const [name, value] of given) {
    const lower = name.toLowerCase();
    if (KEPT_HEADERS.includes(lower) || lower.startsWith('x-amz-meta-')) kept[lower] = value;
  }
  return kept;
}

const headersOf = (request: IncomingMessage) =>
  keptHeaders(
    Object.entries(request.headers).flatMap(([name, value]) =>
      typeof value === 'string' ? [[name, value] as const] : [],
    ),
  );

function sendXml(
  response: ServerResponse,
  status: number,
  xml: string,
  headers: Record<string, string> = {},
): void {
  const body = XML_HEAD + xml;
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

function sendEmpty(response: ServerResponse, status: number, headers: Record<string, string> = {}) {
  response.writeHead(status, { ...headers, 'content-length': 0 });
  response.end();
}

/** Answers one checked request; `payloadHash` is the signed SHA-256 of its body, if any. */
export async function answerS3(
  store: BucketStore,
  request: IncomingMessage,
  response: ServerResponse,
  payloadHash: string | undefined,
): Promise<void> {
  const method = request.method ?? 'GET';
  const { path, rawQuery } = splitTarget(request.url ?? '/');
  const query = new URLSearchParams(rawQuery);
  const [, bucketPart = '', ...keyParts] = path.split('/');
  const bucket = decodeURIComponent(bucketPart);
  const key = decodeURIComponent(keyParts.join('/'));
  const refuse = (error: S3Error) => {
    request.resume();
    sendS3Error(response, error);
  };
  if (key === '' && method === 'PUT' && rawQuery === '') {
    store.createBucket(bucket);
    sendEmpty(response, 200, { location: `/${bucket}` });
    return;
  }
  if (!store.hasBucket(bucket)) {
    if (method === 'HEAD') sendEmpty(response, 404);
    else refuse(noSuchBucket(bucket));
    return;
  }
  if (key === '') {
    if (method === 'HEAD') sendEmpty(response, 200);
    else if (method === 'GET' && query.has('versions')) {
      sendXml(response, 200, listObjectVersions(store, bucket, query));
    } else if (method === 'GET' && query.get('list-type') === '2') {
      const answer = listObjectsV2(store, bucket, query);
      if (typeof answer === 'string') sendXml(response, 200, answer);
      else refuse(answer);
    } else if (method === 'POST' && query.has('delete')) {
      sendXml(response, 200, await deleteObjects(store, bucket, request));
    } else refuse(notImplemented());
    return;
  }
  const object = store.get(bucket, key);
  if (query.has('tagging')) {
    if (object === undefined) refuse(noSuchKey(key));
    else if (method === 'GET') sendXml(response, 200, taggingXml(object));
    else if (method === 'PUT') {
      store.setTags(bucket, key, tagsOf(await textOf(request)));
      sendEmpty(response, 200);
    } else refuse(notImplemented());
    return;
  }
  if (method === 'DELETE') {
    store.delete(bucket, key);
    sendEmpty(response, 204);
  } else if (method === 'GET' || method === 'HEAD') {
    if (object === undefined) {
      if (method === 'HEAD') sendEmpty(response, 404);
      else refuse(noSuchKey(key));
    } else sendObject(store, bucket, object, request, response, query);
  } else if (method === 'PUT' && header(request.headers, 'x-amz-copy-source') !== undefined) {
    const answer = copyObject(store, bucket, key, request);
    if (typeof answer === 'string') sendXml(response, 200, answer);
    else refuse(answer);
  } else if (method === 'PUT') {
    try {
      const stored = await store.put(bucket, key, request, {
        headers: headersOf(request),
        event: 'ObjectCreated:Put',
        check: (_size, sha256) =>
          payloadHash === undefined || payloadHash === sha256
            ? undefined
            : contentSha256Mismatch(payloadHash, sha256),
      });
      sendEmpty(response, 200, { etag: stored.etag });
    } catch (error) {
      // A body other than the one signed: nothing is stored.
      if (error instanceof Refused) sendS3Error(response, error.reason);
      else throw error;
    }
  } else refuse(notImplemented());
}

const notImplemented = () =>
  s3Error(
    501,
    'NotImplemented',
    'A header you provided implies functionality that is not implemented',
  );

function sendObject(
  store: BucketStore,
  bucket: string,
  object: StoredObject,
  request: IncomingMessage,
  response: ServerResponse,
  query: URLSearchParams,
): void {
  const ifMatch = header(request.headers, 'if-match');
  if (ifMatch !== undefined && unquoted(ifMatch) !== unquoted(object.etag)) {
    sendS3Error(response, preconditionFailed('If-Match'));
    return;
  }
  const ifNoneMatch = header(request.headers, 'if-none-match');
  if (ifNoneMatch !== undefined && unquoted(ifNoneMatch) === unquoted(object.etag)) {
    sendEmpty(response, 304, { etag: object.etag });
    return;
  }
  const headers: Record<string, string | number> = {
    ...object.headers,
    etag: object.etag,
    'last-modified': new Date(object.lastModified).toUTCString(),
    'accept-ranges': 'bytes',
  };
  for (const name of OVERRIDES) {
    const value = query.get(name);
    if (value !== null) headers[name.slice('response-'.length)] = value;
  }
  const range = /^bytes=(\d*)-(\d*)$/.exec(header(request.headers, 'range') ?? '');
  let status = 200;
  let part: { start: number; end: number } | undefined;
  if (range !== null && object.size > 0 && (range[1] !== '' || range[2] !== '')) {
    const last = object.size - 1;
    const start = range[1] === '' ? Math.max(0, object.size - Number(range[2])) : Number(range[1]);
    const end = range[1] === '' || range[2] === '' ? last : Math.min(Number(range[2]), last);
    if (start <= end) {
      status = 206;
      part = { start, end };
      headers['content-range'] = `bytes ${String(start)}-${String(end)}/${String(object.size)}`;
    }
  }
  headers['content-length'] = part === undefined ? object.size : part.end - part.start + 1;
  if (request.method === 'HEAD') {
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const bytes = store.read(bucket, object, part);
  response.writeHead(status, headers);
  bytes.pipe(response);
  response.on('close', () => bytes.destroy());
}

/**
 * CopyObject, its four conditions on the source held as RFC 7232 section 6 orders them (the
 * outcomes CopyObject's reference states), all in one turn: the source checked is the one
 * copied. The copy's headers are the source's, or the request's with REPLACE.
 */
function copyObject(
  store: BucketStore,
  bucket: string,
  key: string,
  request: IncomingMessage,
): string | S3Error {
  const named = decodeURIComponent(header(request.headers, 'x-amz-copy-source') ?? '');
  const [sourceBucket = '', ...sourceKey] =
    named.replace(/^\//, '').split('?')[0]?.split('/') ?? [];
  const source = store.get(sourceBucket, sourceKey.join('/'));
  if (source === undefined) return noSuchKey(sourceKey.join('/'));
  const failed = failedCopyCondition(request.headers, source);
  if (failed !== undefined) return preconditionFailed(failed);
  const replace = header(request.headers, 'x-amz-metadata-directive') === 'REPLACE';
  const copy = store.copy(bucket, source, key, replace ? headersOf(request) : undefined);
  return (
    `<CopyObjectResult xmlns="${S3_NAMESPACE}">` +
    `<LastModified>${new Date(copy.lastModified).toISOString()}</LastModified>` +
    `<ETag>${escapeXml(copy.etag)}</ETag></CopyObjectResult>`
  );
}

/** An HTTP date in milliseconds; RFC 7232 has a recipient ignore one it cannot read. */
const dateOf = (value: string | undefined): number | undefined => {
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
};

function failedCopyCondition(
  headers: IncomingHttpHeaders,
  source: StoredObject,
): string | undefined {
  const etag = unquoted(source.etag);
  const ifMatch = header(headers, 'x-amz-copy-source-if-match');
  if (ifMatch !== undefined) {
    if (unquoted(ifMatch) !== etag) return 'x-amz-copy-source-If-Match';
  } else {
    const since = dateOf(header(headers, 'x-amz-copy-source-if-unmodified-since'));
    if (since !== undefined && source.lastModified > since) {
      return 'x-amz-copy-source-If-Unmodified-Since';
    }
  }
  const ifNoneMatch = header(headers, 'x-amz-copy-source-if-none-match');
  if (ifNoneMatch !== undefined) {
    if (unquoted(ifNoneMatch) === etag) return 'x-amz-copy-source-If-None-Match';
  } else {
    const since = dateOf(header(headers, 'x-amz-copy-source-if-modified-since'));
    // A date still to come is no date (RFC 7232 3.3): S3 then copies.
    if (since !== undefined && since <= Date.now() && source.lastModified <= since) {
      return 'x-amz-copy-source-If-Modified-Since';
    }
  }
  return undefined;
}

async function textOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const unescapeXml = (text: string) =>
  text.replace(
    /&(lt|gt|amp|quot|apos);/g,
    (_, name: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[name] ?? '',
  );

/** The values of `<Key>`…`<Value>` pairs, as PutObjectTagging sends them. */
function tagsOf(xml: string): [string, string][] {
  return [...xml.matchAll(/<Key>([^<]*)<\/Key>\s*<Value>([^<]*)<\/Value>/g)].map(
    ([, name = '', value = '']) => [unescapeXml(name), unescapeXml(value)],
  );
}

const taggingXml = (object: StoredObject) =>
  `<Tagging xmlns="${S3_NAMESPACE}"><TagSet>` +
  object.tags
    .map(
      ([name, value]) =>
        `<Tag><Key>${escapeXml(name)}</Key><Value>${escapeXml(value)}</Value></Tag>`,
    )
    .join('') +
  '</TagSet></Tagging>';

/** DeleteObjects: each key named deleted (a missing one too, as S3 says), quietly if asked. */
async function deleteObjects(
  store: BucketStore,
  bucket: string,
  request: IncomingMessage,
): Promise<string> {
  const xml = await textOf(request);
  const quiet = /<Quiet>\s*true\s*<\/Quiet>/i.test(xml);
  const deleted = [...xml.matchAll(/<Object>([\s\S]*?)<\/Object>/g)].map(([, object = '']) => {
    const key = unescapeXml(/<Key>([^<]*)<\/Key>/.exec(object)?.[1] ?? '');
    const versionId = /<VersionId>([^<]*)<\/VersionId>/.exec(object)?.[1];
    store.delete(bucket, key);
    return (
      `<Deleted><Key>${escapeXml(key)}</Key>` +
      (versionId === undefined ? '' : `<VersionId>${escapeXml(versionId)}</VersionId>`) +
      '</Deleted>'
    );
  });
  return `<DeleteResult xmlns="${S3_NAMESPACE}">${quiet ? '' : deleted.join('')}</DeleteResult>`;
}

/** S3's answer to a stored POST form: 204, or the `success_action_status` it asks for. */
export function answerStoredForm(
  response: ServerResponse,
  form: { host?: string; bucket: string; accepted: AcceptedForm; etag: string },
): void {
  const { bucket, accepted, etag } = form;
  const asked = accepted.fields.find(([name]) => name === 'success_action_status')?.[1];
  const status = asked === '200' || asked === '201' ? Number(asked) : 204;
  const path = [bucket, ...accepted.key.split('/')].map(encodeURIComponent).join('/');
  const location = `http://${form.host ?? 'localhost'}/${path}`;
  if (status !== 201) {
    sendEmpty(response, status, { etag, location });
    return;
  }
  sendXml(
    response,
    201,
    `<PostResponse><Location>${escapeXml(location)}</Location><Bucket>${escapeXml(bucket)}</Bucket>` +
      `<Key>${escapeXml(accepted.key)}</Key><ETag>${escapeXml(etag)}</ETag></PostResponse>`,
    { etag, location },
  );
}
