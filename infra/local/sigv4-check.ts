import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Signature Version 4 checked by signing the request again with the SDK's own signer, with the
 * stage's credentials and the request's own date, scope and signed headers, then comparing the
 * two signatures in constant time. Header-signed and presigned requests alike
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html). Every `x-amz-*`
 * header sent must be signed, else a captured request could be replayed as another.
 */
export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

/** SHA-256 and HMAC-SHA256 as the SDK's signer takes them (its Checksum interface). */
export class Sha256 {
  private readonly hash;

  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }

  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

export type SigV4Failure =
  | 'missing'
  | 'malformed'
  | 'unknown-key'
  | 'skewed'
  | 'expired'
  | 'scope'
  | 'unsigned-header'
  | 'mismatch';

export interface SigV4Expectations {
  readonly credentials: Credentials;
  readonly region: string;
  readonly service: string;
  readonly now?: Date;
}

export interface SignedRequest {
  readonly method: string;
  /** The path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** Passed: the payload hash signed (hex, or `UNSIGNED-PAYLOAD` and the like). */
export type SigV4Check = { readonly failure: SigV4Failure } | { readonly payloadHash: string };

/** AWS refuses a request signed more than 15 minutes from its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=(\S+), ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Two signatures equal, compared in constant time. */
export const sameSignature = (ours: string, theirs: string): boolean =>
  ours.length === theirs.length && timingSafeEqual(Buffer.from(ours), Buffer.from(theirs));

/** `20261124T063248Z` as a date, or undefined. */
function amzDate(value: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  const date =
    m === null ? undefined : new Date(`${m.slice(1, 4).join('-')}T${m.slice(4).join(':')}Z`);
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date;
}

/** A raw query, decoded as SigV4 reads it: `+` stays a plus, a repeated name keeps each value. */
function queryParameters(rawQuery: string): Record<string, string | string[]> {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const query: Record<string, string | string[]> = {};
  for (const pair of rawQuery.split('&').filter((p) => p !== '')) {
    const [name = '', ...value] = pair.split('=').map(decode);
    const seen = query[name];
    const joined = value.join('=');
    query[name] = seen === undefined ? joined : [...[seen].flat(), joined];
  }
  return query;
}

/**
 * Checks a request's signature. `body`: undefined takes the payload hash the request signed
 * (S3 checks it against the bytes as they land); a buffer is hashed; `null` stops before the
 * signature itself, so what the headers refuse costs no read of the body.
 */
export async function verifySigV4(
  request: SignedRequest,
  expected: SigV4Expectations,
  body?: Buffer | null,
): Promise<SigV4Check> {
  const mark = request.url.indexOf('?');
  const path = mark < 0 ? request.url : request.url.slice(0, mark);
  const query = queryParameters(mark < 0 ? '' : request.url.slice(mark + 1));
  const authorization = one(request.headers.authorization);
  const presigned = authorization === undefined && 'X-Amz-Signature' in query;
  if (authorization === undefined && !presigned) return { failure: 'missing' };
  const field = (name: string) => one(query[`X-Amz-${name}`]);
  const [, credential = '', signedList = '', provided = ''] = presigned
    ? ['', field('Credential'), field('SignedHeaders'), field('Signature')]
    : (AUTHORIZATION.exec(authorization ?? '') ?? []);
  const longDate = presigned ? field('Date') : one(request.headers['x-amz-date']);
  const expires = Number(field('Expires') ?? 'NaN');
  const scope = CREDENTIAL.exec(credential);
  const signedAt = amzDate(longDate);
  if (
    scope === null ||
    signedAt === undefined ||
    (presigned &&
      (field('Algorithm') !== 'AWS4-HMAC-SHA256' || !(expires >= 0 && expires <= 604_800)))
  ) {
    return { failure: 'malformed' };
  }
  const [, accessKeyId, day, region, service] = scope;
  if (accessKeyId !== expected.credentials.accessKeyId) return { failure: 'unknown-key' };
  const age = (expected.now ?? new Date()).getTime() - signedAt.getTime();
  if (presigned && age > expires * 1000) return { failure: 'expired' };
  if (presigned ? -age > MAX_SKEW_MS : Math.abs(age) > MAX_SKEW_MS) return { failure: 'skewed' };
  if (region !== expected.region || service !== expected.service || day !== longDate?.slice(0, 8)) {
    return { failure: 'scope' };
  }
  const signed = signedList.split(';');
  const sent = Object.keys(request.headers).filter((n) => n === 'host' || n.startsWith('x-amz-'));
  if (sent.some((name) => !signed.includes(name))) return { failure: 'unsigned-header' };
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = [value].flat().join(',');
  }
  const payloadHash = presigned
    ? (field('Content-Sha256') ?? 'UNSIGNED-PAYLOAD')
    : (headers['x-amz-content-sha256'] ?? 'UNSIGNED-PAYLOAD');
  if (body === null) return { payloadHash };
  // A buffer's own hash, whatever a header claims: a header that claims another fails.
  if (body !== undefined && 'x-amz-content-sha256' in headers) {
    headers['x-amz-content-sha256'] = createHash('sha256').update(body).digest('hex');
  }
  const signer = new SignatureV4({
    credentials: expected.credentials,
    region: expected.region,
    service: expected.service,
    sha256: Sha256,
    // The path is checked as sent, already escaped once (as S3 signs it).
    uriEscapePath: false,
    applyChecksum: false,
  });
  const toSign = {
    method: request.method,
    protocol: 'http:',
    hostname: headers.host ?? '',
    path,
    query,
    headers,
    ...(body === undefined ? {} : { body }),
  };
  const names = new Set(signed);
  let ours: string | undefined;
  if (presigned) {
    const unsignedHash = new Set(['x-amz-content-sha256']);
    const again = await signer.presign(
      { ...toSign, headers: { ...headers, 'x-amz-content-sha256': payloadHash } },
      {
        signingDate: signedAt,
        expiresIn: expires,
        signableHeaders: names,
        unsignableHeaders: unsignedHash,
        unhoistableHeaders: new Set([...names, ...unsignedHash]),
      },
    );
    ours = one(again.query?.['X-Amz-Signature'] ?? undefined);
  } else {
    const again = await signer.sign(toSign, { signingDate: signedAt, signableHeaders: names });
    ours = /Signature=([0-9a-f]+)$/.exec(String(again.headers.authorization))?.[1];
  }
  return sameSignature(ours ?? '', provided) ? { payloadHash } : { failure: 'mismatch' };
}

/** A request as a JSON API (Lambda, DynamoDB) received it: see `verifySigV4` for `body`. */
export interface ReceivedRequest extends SignedRequest {
  readonly body: Buffer | null;
}

/** What a JSON API answers a request it will not authenticate. */
export interface SigV4Refusal {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

const INVALID = 'InvalidSignatureException';
const JSON_REFUSALS: Record<SigV4Failure, readonly [string, string]> = {
  missing: ['MissingAuthenticationTokenException', 'Missing Authentication Token'],
  malformed: ['IncompleteSignatureException', 'Authorization header is malformed'],
  'unknown-key': [
    'UnrecognizedClientException',
    'The security token included in the request is invalid.',
  ],
  skewed: [INVALID, 'Signature expired: the request is dated more than 15 minutes from now'],
  expired: [INVALID, 'Signature expired'],
  scope: [INVALID, 'Credential should be scoped to a valid region and service'],
  'unsigned-header': [INVALID, 'There were headers present in the request which were not signed'],
  mismatch: [
    INVALID,
    'The request signature we calculated does not match the signature you provided.',
  ],
};

/** The check as a JSON API answers it: undefined when it passes. */
export async function checkSigV4(
  request: ReceivedRequest,
  expected: SigV4Expectations,
): Promise<SigV4Refusal | undefined> {
  const check = await verifySigV4(request, expected, request.body);
  if (!('failure' in check)) return undefined;
  const [type, message] = JSON_REFUSALS[check.failure];
  return { status: 403, type, message };
}
