import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Signature Version 4, header-signed or presigned, checked by signing the request again with
 * the SDK's own signer (the request's date, scope and signed headers, the stage's credentials)
 * and comparing the signatures in constant time. Every `x-amz-*` header sent must be signed:
 * else a captured request could be replayed as another (`X-Amz-Log-Type: Tail`, for its log).
 */
export type Credentials = { readonly accessKeyId: string; readonly secretAccessKey: string };

/** A request as received. `body`: see `verifySigV4`. */
export interface ReceivedRequest {
  readonly method: string;
  /** The path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body?: Buffer | null;
}

export interface SigV4Expectations {
  readonly credentials: Credentials;
  readonly region: string;
  readonly service: string;
  readonly now?: Date;
}

const [INVALID, UNRECOGNIZED] = ['InvalidSignatureException', 'UnrecognizedClientException'];
const MISMATCH = 'The request signature we calculated does not match the signature you provided.';
/** Each failure as the JSON APIs (Lambda, DynamoDB) answer it: its type and message. */
export const SIGV4_REFUSALS = {
  missing: ['MissingAuthenticationTokenException', 'Missing Authentication Token'],
  malformed: ['IncompleteSignatureException', 'Authorization header is malformed'],
  'unknown-key': [UNRECOGNIZED, 'The security token included in the request is invalid.'],
  skewed: [INVALID, 'Signature expired: the request is dated more than 15 minutes from now'],
  expired: [INVALID, 'Signature expired'],
  scope: [INVALID, 'Credential should be scoped to a valid region and service'],
  'unsigned-header': [INVALID, 'There were headers present in the request which were not signed'],
  mismatch: [INVALID, MISMATCH],
} as const;
export type SigV4Failure = keyof typeof SIGV4_REFUSALS;

const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=(\S+), ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const CREDENTIAL = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Two signatures equal, compared in constant time. */
export const sameSignature = (ours: string, theirs: string): boolean =>
  ours.length === theirs.length && timingSafeEqual(Buffer.from(ours), Buffer.from(theirs));

/**
 * Checks a request's signature; passed, the payload hash it signed. `body`: undefined takes
 * that hash as signed (S3 checks it as the bytes land), a buffer is hashed, and `null` stops
 * before the signature itself: what the headers refuse costs no read of the body.
 */
export async function verifySigV4(
  request: ReceivedRequest,
  expected: SigV4Expectations,
): Promise<{ readonly failure: SigV4Failure } | { readonly payloadHash: string }> {
  const [path = '', rawQuery = ''] = request.url.split(/\?(.*)/s);
  const query: Record<string, string[]> = {};
  // Decoded as SigV4 encodes: a `+` sent is a plus (%2B), not a space.
  for (const [name, value] of new URLSearchParams(rawQuery.replaceAll('+', '%2B'))) {
    if (name !== '') (query[name] ??= []).push(value);
  }
  const field = (name: string) => query[`X-Amz-${name}`]?.[0];
  const authorization = one(request.headers.authorization);
  const presigned = authorization === undefined && field('Signature') !== undefined;
  if (authorization === undefined && !presigned) return { failure: 'missing' };
  const [, credential = '', signedList = '', provided = ''] = presigned
    ? ['', field('Credential'), field('SignedHeaders'), field('Signature')]
    : (AUTHORIZATION.exec(authorization ?? '') ?? []);
  const longDate = (presigned ? field('Date') : one(request.headers['x-amz-date'])) ?? '';
  const expires = Number(field('Expires') ?? 'NaN');
  const scope = CREDENTIAL.exec(credential);
  const signedAt = new Date(
    AMZ_DATE.test(longDate) ? longDate.replace(AMZ_DATE, '$1-$2-$3T$4:$5:$6Z') : '',
  );
  const badQuery =
    field('Algorithm') !== 'AWS4-HMAC-SHA256' || !(expires >= 0 && expires <= 604_800);
  if (scope === null || Number.isNaN(signedAt.getTime()) || (presigned && badQuery)) {
    return { failure: 'malformed' };
  }
  const [, accessKeyId, day, region, service] = scope;
  if (accessKeyId !== expected.credentials.accessKeyId) return { failure: 'unknown-key' };
  const age = (expected.now ?? new Date()).getTime() - signedAt.getTime();
  if (presigned && age > expires * 1000) return { failure: 'expired' };
  if (presigned ? -age > MAX_SKEW_MS : Math.abs(age) > MAX_SKEW_MS) return { failure: 'skewed' };
  if (region !== expected.region || service !== expected.service || day !== longDate.slice(0, 8)) {
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
  const { body } = request;
  const payloadHash =
    (presigned ? field('Content-Sha256') : headers['x-amz-content-sha256']) ?? 'UNSIGNED-PAYLOAD';
  if (body === null) return { payloadHash };
  // The hash of the bytes received, whatever a header claims: a header claiming another fails.
  if (body !== undefined && 'x-amz-content-sha256' in headers) {
    headers['x-amz-content-sha256'] = createHash('sha256').update(body).digest('hex');
  }
  // A presigned request signs its payload hash but sends it in no header, and no x-amz-date.
  if (presigned) headers['x-amz-content-sha256'] = payloadHash;
  const signer = new SignatureV4({
    ...expected,
    sha256: Sha256,
    uriEscapePath: false, // the path as sent is escaped once, as S3 signs it
    applyChecksum: false,
  });
  const again = await signer.sign(
    { method: request.method, protocol: 'http:', hostname: '', path, query, headers, body },
    {
      signingDate: signedAt,
      signableHeaders: new Set(signed),
      unsignableHeaders: new Set(['x-amz-date', 'x-amz-content-sha256']),
    },
  );
  const ours = /Signature=(\w+)$/.exec(String(again.headers.authorization))?.[1] ?? '';
  return sameSignature(ours, provided) ? { payloadHash } : { failure: 'mismatch' };
}

/** The check as a JSON API (Lambda, DynamoDB) answers it: undefined when it passes. */
export async function checkSigV4(
  request: ReceivedRequest,
  expected: SigV4Expectations,
): Promise<{ status: number; type: string; message: string } | undefined> {
  const check = await verifySigV4(request, expected);
  if (!('failure' in check)) return undefined;
  const [type, message] = SIGV4_REFUSALS[check.failure];
  return { status: 403, type, message };
}
