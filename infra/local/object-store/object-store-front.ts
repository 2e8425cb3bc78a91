import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { isIPv6 } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import Busboy from 'busboy';
import * as keys from '#shared/storage/keys.ts';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import { originMatches } from '../gateway/api-gateway-cors.ts';
import {
  type Credentials,
  SIGV4_REFUSALS,
  type SigV4Failure,
  verifySigV4,
} from '../sigv4-check.ts';
import { type BucketStore, S3Error, type StoredObject } from './bucket-store.ts';
import { type AcceptedForm, checkPostForm } from './s3-post-policy.ts';

/**
 * The object store's HTTP face: S3's checks, then the operations the service, its CLIs, the
 * smoke check and the bench call (any other is 501). Every request is signed with the stage's
 * credentials, or is a POST form with a signed policy; CORS preflights pass unsigned. On a
 * scanning stage a GET under the scanned prefixes needs the tag the bucket policy asks for.
 * Errors carry S3's Code (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 */
export interface ObjectStoreFrontOptions {
  readonly credentials: Credentials;
  /** The releaser's key, which the scan hold admits as the bucket's policy admits its role. */
  readonly releaser?: Credentials;
  readonly region: string;
  readonly store: BucketStore;
  readonly malwareScanning?: boolean;
  /** The data stack's rules for the stage's origins: given at start, not kept in the store. */
  readonly corsRules?: readonly CorsRule[];
}

/** S3's 20 KB of form fields before the file; a refused body is read up to 64 MiB first. */
const MAX_FORM_FIELD_BYTES = 20 * 1024;
const DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 30_000;
const NS = ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const KEPT = ['cache-control', 'content-disposition', 'content-encoding', 'content-language'];
const KEPT_HEADERS = [...KEPT, 'content-type', 'expires'];
/** The query the store implements, by method, on a bucket (`/`) and an object (`/key`): no other. */
const QUERIES: Partial<Record<string, string>> = {
  'GET /':
    'list-type prefix max-keys start-after continuation-token versions key-marker version-id-marker',
  'GET /key': `versionId tagging response-${KEPT_HEADERS.join(' response-')}`,
  ...{ 'HEAD /key': 'versionId', 'PUT /key': 'tagging', 'DELETE /key': 'versionId' },
  'POST /': 'delete',
};
/** Any request's: a presigned one's signature, the SDK's `x-id`, checksums it hoists (unchecked). */
const ANY_QUERY = /^(X-Amz-[\w-]+|x-id|x-amz-(sdk-)?checksum-[\w-]+)$/;

const escape = (text: string) => text.replace(/[<>&]/g, (c) => `&#${String(c.charCodeAt(0))};`);
const el = (name: string, value: string | number | boolean) =>
  `<${name}>${escape(String(value))}</${name}>`;
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
const unquoted = (etag = '') => etag.trim().replace(/^"(.*)"$/, '$1');
/** `If-Match` (on a GET, or the copy's source) held, or a 412. */
const holdIfMatch = (object: StoredObject, etag = object.etag) => {
  if (unquoted(etag) !== unquoted(object.etag)) throw new S3Error('PreconditionFailed');
};
const versionOf = (query: URLSearchParams) => query.get('versionId') ?? undefined;
/** The object while it is the version asked for: the store keeps the current one only. */
function current(object: StoredObject | undefined, versionId?: string) {
  if (object !== undefined && (versionId ?? object.versionId) === object.versionId) return object;
  throw new S3Error(versionId === undefined ? 'NoSuchKey' : 'NoSuchVersion');
}
/** A 501, changing nothing, for a query parameter the store does not implement. */
function holdToImplemented(query: URLSearchParams, implemented = '') {
  const known = (name: string) => implemented.split(' ').includes(name) || ANY_QUERY.test(name);
  const unknown = [...query.keys()].find((name) => !known(name));
  if (unknown !== undefined) throw new S3Error('NotImplemented', `?${unknown} is not implemented`);
  return query;
}
/** The headers that name an object's bytes and their version. */
const versioned = (o: StoredObject) => ({ etag: o.etag, 'x-amz-version-id': o.versionId });

function send(response: ServerResponse, status: number, body = '', headers = {}): unknown {
  const text = body === '' ? '' : `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  const type = text === '' ? {} : { 'content-type': 'application/xml' };
  response.writeHead(status, { ...headers, ...type, 'content-length': Buffer.byteLength(text) });
  return response.end(response.req.method === 'HEAD' ? undefined : text);
}

/** S3's answer to an error (ours: 500), sent once the body is in, bounded: else it may be lost. */
function refuse(request: IncomingMessage, response: ServerResponse, cause: unknown): unknown {
  if (response.headersSent) return response.destroy();
  const error = cause instanceof S3Error ? cause : new S3Error('InternalError');
  const xml = `<Error>${el('Code', error.code)}${el('Message', error.message)}</Error>`;
  if (request.readableEnded) return send(response, error.status, xml);
  let bytes = 0;
  const timer = setTimeout(() => request.socket.destroy(), DRAIN_MS).unref();
  request.on('data', (chunk: Buffer) => {
    if ((bytes += chunk.length) > DRAIN_BYTES) request.socket.destroy();
    else timer.refresh();
  });
  request.on('end', () => {
    clearTimeout(timer);
    send(response, error.status, xml);
  });
  return request.resume();
}

/** S3's Code for each SigV4 failure; the message is the one the JSON APIs give. */
const SIGV4_CODES: Record<SigV4Failure, S3Error['code']> = {
  ...{ missing: 'AccessDenied', expired: 'AccessDenied', 'unsigned-header': 'AccessDenied' },
  ...{ malformed: 'AuthorizationHeaderMalformed', scope: 'AuthorizationHeaderMalformed' },
  ...{ 'unknown-key': 'InvalidAccessKeyId', skewed: 'RequestTimeTooSkewed' },
  mismatch: 'SignatureDoesNotMatch',
};

/** `http://host:port`, an IPv6 address in brackets. */
export const endpointOf = (host: string, port: number): string =>
  `http://${isIPv6(host) ? `[${host}]` : host}:${String(port)}`;

/** The front, request by request: a refusal is S3's error document, our own fault a 500. */
export const objectStoreFront =
  (options: ObjectStoreFrontOptions): RequestListener =>
  (request, response) => {
    handle(options, response).catch((error: unknown) => {
      if (!(error instanceof S3Error)) console.error('[object store] could not answer:', error);
      refuse(request, response, error);
    });
  };

/** The first rule that admits the origin, the method and every header asked for. */
const ruleFor = (rules: readonly CorsRule[], origin: string, method: string, asked: string[]) =>
  rules.find(
    (rule) =>
      rule.allowOrigins.some((pattern) => originMatches(pattern, origin)) &&
      rule.allowMethods.includes(method) &&
      asked.every((name) => rule.allowHeaders.some((p) => originMatches(p.toLowerCase(), name))),
  );

/** S3's CORS headers (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html). */
const corsHeaders = (rule: CorsRule, origin: string) => ({
  'access-control-allow-origin': rule.allowOrigins.includes('*') ? '*' : origin,
  ...(rule.allowOrigins.includes('*') ? {} : { 'access-control-allow-credentials': 'true' }),
  ...(rule.exposeHeaders.length === 0
    ? {}
    : { 'access-control-expose-headers': rule.exposeHeaders.join(', ') }),
  'access-control-max-age': String(rule.maxAgeSeconds),
  vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
});

/** A request to the store, as each step reads it: its bucket, key and query, decoded. */
function s3Call(options: ObjectStoreFrontOptions, response: ServerResponse) {
  const { req: request } = response;
  const [path = '', search = ''] = (request.url ?? '/').split(/\?(.*)/s);
  const [, bucket = '', key = ''] =
    /^\/([^/]*)\/?(.*)$/s.exec(path)?.map((part) => decodeURIComponent(part)) ?? [];
  const query = new URLSearchParams(search);
  return { options, request, response, method: request.method ?? 'GET', bucket, key, query };
}
type S3Call = ReturnType<typeof s3Call>;

/** CORS, the signature (or a POST form's policy), the query, the bucket; then the operation. */
async function handle(options: ObjectStoreFrontOptions, response: ServerResponse) {
  const call = s3Call(options, response);
  const { request, method, bucket, key, query } = call;
  const { headers } = request;
  if (method === 'OPTIONS') return answerPreflight(call);
  const origin = headers.origin ?? '';
  const rule = ruleFor(options.corsRules ?? [], origin, method, []);
  if (rule) response.setHeaders(new Map(Object.entries(corsHeaders(rule, origin))));
  const auth = await authenticate(call);
  if ('failure' in auth) {
    const [, message] = SIGV4_REFUSALS[auth.failure];
    if (auth.failure !== 'missing') throw new S3Error(SIGV4_CODES[auth.failure], message);
    if (method !== 'POST' || key !== '' || request.url?.includes('?') || bucket === '')
      throw new S3Error('AccessDenied');
    return receiveForm(call);
  }
  holdToImplemented(query, QUERIES[`${method} /${key === '' ? '' : 'key'}`]);
  if (key === '' && method === 'PUT') {
    options.store.createBucket(bucket);
    return send(response, 200, '', { location: `/${bucket}` });
  }
  if (!options.store.hasBucket(bucket)) throw new S3Error('NoSuchBucket');
  if (key === '') return bucketOperation(call);
  if (query.has('tagging')) return objectTagging(call);
  if (method === 'DELETE') {
    options.store.delete(bucket, key, versionOf(query));
    return send(response, 204);
  }
  if (method === 'GET' || method === 'HEAD') return getObject(call, auth.byReleaser);
  if (method !== 'PUT') throw new S3Error('NotImplemented');
  const source = one(headers['x-amz-copy-source']);
  return source === undefined ? putObject(call, auth.payloadHash) : copyObject(call, source);
}

/** A CORS preflight, unsigned: answered by the first rule that admits all it asks, or a 403. */
function answerPreflight({ options, request, response }: S3Call): unknown {
  const { headers } = request;
  const origin = headers.origin ?? '';
  const asked = (headers['access-control-request-headers'] ?? '').split(',');
  const names = asked.map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const method = headers['access-control-request-method'] ?? '';
  const rule = ruleFor(options.corsRules ?? [], origin, method, names);
  if (rule === undefined) throw new S3Error('AccessForbidden', 'CORS: not allowed');
  request.resume();
  return send(response, 200, '', {
    ...corsHeaders(rule, origin),
    'access-control-allow-methods': rule.allowMethods.join(', '),
    ...(names.length === 0 ? {} : { 'access-control-allow-headers': names.join(', ') }),
  });
}

/** SigV4 with the stage's key; a key it does not know may be the releaser's. */
async function authenticate({ options, request, method }: S3Call) {
  const { url = '/', headers } = request;
  const check = (credentials: Credentials) =>
    verifySigV4({ method, url, headers }, { ...options, credentials, service: 's3' });
  const auth = await check(options.credentials);
  if (options.releaser === undefined || !('failure' in auth) || auth.failure !== 'unknown-key') {
    return { ...auth, byReleaser: false };
  }
  return { ...(await check(options.releaser)), byReleaser: true };
}

/** HeadBucket, ListObjectsV2, ListObjectVersions and DeleteObjects. */
async function bucketOperation({ options, request, response, method, bucket, query }: S3Call) {
  if (method === 'HEAD') return send(response, 200);
  const listed = method === 'GET' && (query.has('versions') || query.get('list-type') === '2');
  if (listed) return send(response, 200, listing(options.store, bucket, query));
  if (method !== 'POST' || !query.has('delete')) throw new S3Error('NotImplemented');
  for (const [, entry = ''] of (await text(request)).matchAll(/<Object>(.*?)<\/Object>/gs)) {
    const [k, v] = ['Key', 'VersionId'].map((n) => new RegExp(`<${n}>([^<]*)<`).exec(entry)?.[1]);
    options.store.delete(bucket, unescapeXml(k), v);
  }
  return send(response, 200, `<DeleteResult${NS}></DeleteResult>`);
}

/** GetObjectTagging, and PutObjectTagging (GuardDuty's verdict, the releaser's release). */
async function objectTagging({ options, request, response, method, bucket, key, query }: S3Call) {
  const { store } = options;
  const { tags } = current(store.get(bucket, key), versionOf(query));
  if (method === 'PUT' && store.setTags(bucket, key, tagsOf(await text(request)))) {
    return send(response, 200);
  }
  const set = tags.map(([k, v]) => `<Tag>${el('Key', k)}${el('Value', v)}</Tag>`).join('');
  return send(response, 200, `<Tagging${NS}><TagSet>${set}</TagSet></Tagging>`);
}

/**
 * GetObject and HeadObject, held to `If-Match`; on a scanning stage a GET under the scanned
 * prefixes needs the tag the bucket policy asks for, unless the releaser signed it.
 */
function getObject(call: S3Call, byReleaser: boolean): unknown {
  const { options, request, response, method, bucket, key, query } = call;
  const object = options.store.get(bucket, key);
  const held = options.malwareScanning === true && method === 'GET' && !byReleaser;
  if (held && keys.SCANNED_OBJECT_PREFIXES.some((p) => key.startsWith(p))) {
    const tags = new Map(object?.tags);
    const clean = tags.get(keys.SCAN_STATUS_TAG) === 'NO_THREATS_FOUND';
    if (!clean && tags.get(keys.SCAN_RELEASE_TAG) !== keys.SCAN_RELEASED_VALUE) {
      throw new S3Error('AccessDenied');
    }
  }
  const found = current(object, versionOf(query));
  holdIfMatch(found, request.headers['if-match']);
  const sent = { ...found.headers, ...versioned(found), 'content-length': found.size };
  const modified = { 'last-modified': new Date(found.lastModified).toUTCString() };
  // A presigned download's `response-content-disposition` and the like.
  const overrides = KEPT_HEADERS.flatMap((name) => {
    const value = query.get(`response-${name}`);
    return value === null ? [] : [[name, value] as const];
  });
  response.writeHead(200, { ...sent, ...modified, ...Object.fromEntries(overrides) });
  if (method === 'HEAD') return response.end();
  // A client gone ends the read: nothing to answer it.
  return pipeline(options.store.read(bucket, found), response, () => undefined);
}

/** PutObject, its bytes held to the hash the signature covers. */
async function putObject({ options, request, response, bucket, key }: S3Call, payloadHash: string) {
  const signed = /^[0-9a-f]{64}$/.test(payloadHash) ? payloadHash : undefined;
  const stored = await options.store.put(bucket, key, request, {
    headers: keptHeaders(Object.entries(request.headers)),
    event: 'ObjectCreated:Put',
    // `If-None-Match: *` is held as the bytes land: no other write comes between.
    check: (_size, sha256) =>
      request.headers['if-none-match'] === '*' && options.store.get(bucket, key) !== undefined
        ? new S3Error('PreconditionFailed')
        : signed === undefined || signed === sha256
          ? undefined
          : new S3Error('XAmzContentSHA256Mismatch'),
  });
  return send(response, 200, '', versioned(stored));
}

/** CopyObject, in one turn, of the version named, held to `x-amz-copy-source-if-match`. */
function copyObject({ options, request, response, bucket, key }: S3Call, source: string) {
  const { headers } = request;
  const [path = '', asked] = source.split(/\?(.*)/s);
  const sourceQuery = holdToImplemented(new URLSearchParams(asked), 'versionId');
  const [, from = '', fromKey = ''] = /^\/?([^/]*)\/(.*)$/s.exec(decodeURIComponent(path)) ?? [];
  const original = current(options.store.get(from, fromKey), versionOf(sourceQuery));
  holdIfMatch(original, one(headers['x-amz-copy-source-if-match']));
  const replace = headers['x-amz-metadata-directive'] === 'REPLACE';
  const kept = replace ? keptHeaders(Object.entries(headers)) : undefined;
  const copy = options.store.copy(bucket, original, key, kept);
  request.resume();
  const modified = new Date(copy.lastModified).toISOString();
  const checksum = copy.sha256 === undefined ? '' : el('ChecksumSHA256', copy.sha256);
  const result = el('LastModified', modified) + el('ETag', copy.etag) + checksum;
  const xml = `<CopyObjectResult${NS}>${result}</CopyObjectResult>`;
  return send(response, 200, xml, { 'x-amz-version-id': copy.versionId });
}

/** The headers S3 keeps with an object: a PUT's, a REPLACE copy's, a form's fields. */
function keptHeaders(given: Iterable<readonly [string, unknown]>): Record<string, string> {
  const kept: Record<string, string> = { 'content-type': 'binary/octet-stream' };
  for (const [name, value] of given) {
    const lower = name.toLowerCase();
    const wanted = KEPT_HEADERS.includes(lower) || lower.startsWith('x-amz-meta-');
    if (wanted && typeof value === 'string') kept[lower] = value;
  }
  return kept;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const unescapeXml = (text = '') =>
  text.replace(/&(#?\w+);/g, (_, e: string) =>
    e.startsWith('#') ? String.fromCharCode(Number(e.slice(1))) : (ENTITIES[e] ?? ''),
  );
const tagsOf = (xml: string) =>
  [...xml.matchAll(/<Key>([^<]*)<\/Key>\s*<Value>([^<]*)<\/Value>/g)].map(
    ([, k, v]) => [unescapeXml(k), unescapeXml(v)] as const,
  );

/**
 * ListObjectsV2 (`continuation-token`) or ListObjectVersions (`key-marker`): keys under the
 * prefix in S3's order, 1,000 a page; the store keeps current versions only: a key lists one.
 */
function listing(store: BucketStore, bucket: string, query: URLSearchParams): string {
  const versions = query.has('versions');
  const prefix = query.get('prefix') ?? '';
  const token = query.get('continuation-token');
  const marker = query.get(versions ? 'key-marker' : 'start-after') ?? '';
  const after = versions || token === null ? Buffer.from(marker) : Buffer.from(token, 'base64url');
  const maxKeys = Math.min(Number(query.get('max-keys') ?? 1000) || 0, 1000);
  const later = store.keys(bucket, prefix).filter((k) => Buffer.compare(Buffer.from(k), after) > 0);
  const listed = later.slice(0, maxKeys).flatMap((k) => store.get(bucket, k) ?? []);
  const truncated = maxKeys > 0 && later.length > maxKeys;
  const { key: last = '', versionId: lastVersion = '' } = listed.at(-1) ?? {};
  const [tag, result] = versions
    ? ['Version', 'ListVersionsResult']
    : ['Contents', 'ListBucketResult'];
  const entries = listed.map(
    (object) =>
      `<${tag}>${el('Key', object.key)}` +
      (versions ? el('VersionId', object.versionId) + el('IsLatest', true) : '') +
      el('LastModified', new Date(object.lastModified).toISOString()) +
      `${el('ETag', object.etag)}${el('Size', object.size)}${el('StorageClass', 'STANDARD')}</${tag}>`,
  );
  const marks = versions
    ? el('KeyMarker', after.toString()) +
      el('IsTruncated', truncated) +
      (truncated ? el('NextKeyMarker', last) + el('NextVersionIdMarker', lastVersion) : '')
    : el('KeyCount', listed.length) +
      (token === null ? '' : el('ContinuationToken', token)) +
      el('IsTruncated', truncated) +
      (truncated ? el('NextContinuationToken', Buffer.from(last).toString('base64url')) : '');
  const head = el('Name', bucket) + el('Prefix', prefix) + el('MaxKeys', maxKeys);
  return `<${result}${NS}>${head}${marks}${entries.join('')}</${result}>`;
}

/**
 * A browser's POST form: its fields read and checked (s3-post-policy.ts) before its file, the
 * file stored only once whole and within the policy's size. A text field named `file` is the
 * file too (`curl -F 'file=<notes.txt'`). A refused form stores nothing.
 */
function receiveForm(call: S3Call): unknown {
  const { request, response } = call;
  const parser = formParser(request);
  const fields: [string, string][] = [];
  let fieldBytes = 0;
  let file: Readable | undefined;
  let answered = false;
  const answerOnce = (answer: () => unknown): unknown => {
    if (answered) return;
    answered = true;
    return answer();
  };
  const refuseForm = (error: unknown) =>
    answerOnce(() => {
      file?.destroy();
      request.unpipe(parser);
      return refuse(request, response, error);
    });
  const takeFile = (filename: string, stream: Readable) => {
    file = stream.pause();
    void storeFormFile(call, { fields, filename }, stream, () => answered)
      .then(({ form, stored }) => answerOnce(() => answerForm(call, form, stored)))
      .catch(refuseForm);
  };
  response.on('close', () => file?.destroy());
  parser.on('field', (name, latin1) => {
    if (file !== undefined || answered) return;
    // As latin-1, a text `file` field keeps its bytes; the other fields are UTF-8.
    const value = Buffer.from(latin1, 'latin1');
    if (name === 'file') takeFile('', Readable.from([value]));
    else if ((fieldBytes += name.length + latin1.length) > MAX_FORM_FIELD_BYTES) {
      refuseForm(new S3Error('MaxPostPreDataLengthExceeded'));
    } else fields.push([name, value.toString('utf8')]);
  });
  parser.on('file', (name, stream, info) => {
    if (file !== undefined || answered || name !== 'file') stream.resume();
    else takeFile(info.filename ?? '', stream);
  });
  parser.on('error', () => refuseForm(new S3Error('MalformedPOSTRequest')));
  parser.on('close', () => {
    if (file === undefined) refuseForm(new S3Error('IncorrectNumberOfFilesInPostRequest'));
  });
  return request.pipe(parser);
}

/** Busboy on the form, its fields bounded (S3's own limit is checked as they come). */
function formParser(request: IncomingMessage): Busboy.Busboy {
  const limits = { fieldSize: DRAIN_BYTES, fields: 200, parts: 201 };
  const charsets = { defParamCharset: 'utf8', defCharset: 'latin1' };
  try {
    return Busboy({ headers: request.headers, ...charsets, limits });
  } catch {
    throw new S3Error('MalformedPOSTRequest');
  }
}

/** The form's file, once its fields pass their policy: stored whole and within its size. */
async function storeFormFile(
  { options, bucket }: S3Call,
  submitted: { readonly fields: [string, string][]; readonly filename: string },
  file: Readable,
  refused: () => boolean,
) {
  const form = await checkPostForm({ bucket, ...submitted }, options);
  const { min = 0, max = Infinity } = form.size ?? {};
  const tooSmall = (size: number) => (size < min ? new S3Error('EntityTooSmall') : undefined);
  // Past `max` the put fails at once, and refuse() reads the rest, bounded, for its answer.
  const stored = await options.store.put(bucket, form.key, file, {
    headers: keptHeaders(form.fields),
    event: 'ObjectCreated:Post',
    maxSize: max,
    check: (size) => (refused() ? new S3Error('InternalError') : tooSmall(size)),
  });
  return { form, stored };
}

/** `success_action_status` 201 (with S3's XML) or 200, else 204; `Location` names the object. */
function answerForm(call: S3Call, form: AcceptedForm, stored: StoredObject): unknown {
  const { request, response, bucket } = call;
  const asked = form.fields.find(([name]) => name.toLowerCase() === 'success_action_status')?.[1];
  const status = asked === '201' || asked === '200' ? Number(asked) : 204;
  const path = [bucket, ...form.key.split('/')].map(encodeURIComponent).join('/');
  const location = `http://${request.headers.host ?? 'localhost'}/${path}`;
  const created = el('Location', location) + el('Bucket', bucket) + el('Key', form.key);
  const result = `<PostResponse>${created}${el('ETag', stored.etag)}</PostResponse>`;
  return send(response, status, status === 201 ? result : '', { ...versioned(stored), location });
}
