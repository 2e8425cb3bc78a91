import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

/** What an AWS API answers a request it will not authenticate: status, error type, message. */
export interface SigV4Refusal {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

/** A request as it reached the server: the signature covers all of it. */
export interface ReceivedRequest {
  readonly method: string;
  /** The path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** SHA-256 and HMAC-SHA256 as the SDK's signer takes them (its Checksum interface). */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

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

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
/** AWS refuses a request signed more than 15 minutes from its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;

const refusal = (status: number, type: string, message: string): SigV4Refusal => ({
  status,
  type,
  message,
});

/** `20261124T063248Z` as a date, or undefined. */
function amzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(`${y ?? ''}-${mo ?? ''}-${d ?? ''}T${h ?? ''}:${mi ?? ''}:${s ?? ''}Z`);
}

/**
 * Checks a request's Signature Version 4 `Authorization` header as AWS does
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html):
 * the SDK's own signer signs the same request again, with the stage's credentials, and the two
 * signatures must be equal. The answers are AWS's: no signature is
 * `MissingAuthenticationTokenException`, another access key `UnrecognizedClientException`, a
 * different signature or a date over 15 minutes off `InvalidSignatureException`.
 */
export async function checkSigV4(
  request: ReceivedRequest,
  expected: {
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
    readonly region: string;
    readonly service: string;
    readonly now?: Date;
  },
): Promise<SigV4Refusal | undefined> {
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    return refusal(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  }
  const match = AUTHORIZATION.exec(authorization);
  if (match === null) {
    return refusal(403, 'IncompleteSignatureException', 'Authorization header is malformed');
  }
  const [, accessKeyId, day, region, service, signedHeaders = '', signature = ''] = match;
  if (accessKeyId !== expected.credentials.accessKeyId) {
    return refusal(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    );
  }
  const headerDate = request.headers['x-amz-date'];
  const signedAt = amzDate(Array.isArray(headerDate) ? headerDate[0] : headerDate);
  const now = expected.now ?? new Date();
  if (signedAt === undefined || Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS) {
    return refusal(
      403,
      'InvalidSignatureException',
      'Signature expired: the request is dated more than 15 minutes from now',
    );
  }
  if (
    region !== expected.region ||
    service !== expected.service ||
    day !== headerDate?.slice(0, 8)
  ) {
    return refusal(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to a valid region and service: ${expected.region}/${expected.service}`,
    );
  }
  const names = signedHeaders.split(';');
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // The body's hash, as received: a header that claims another is a signature that fails.
  if (headers['x-amz-content-sha256'] !== undefined) {
    headers['x-amz-content-sha256'] = createHash('sha256').update(request.body).digest('hex');
  }
  const [path = '/', rawQuery = ''] = request.url.split('?', 2);
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQuery)) query[key] = value;
  const signer = new SignatureV4({
    credentials: expected.credentials,
    region: expected.region,
    service: expected.service,
    sha256: Sha256,
    // The path as sent is already the canonical URI the client signed.
    uriEscapePath: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path,
      query,
      headers,
      body: request.body,
    },
    { signingDate: signedAt, signableHeaders: new Set(names) },
  );
  const ours = /Signature=([0-9a-f]{64})$/.exec(signed.headers.authorization ?? '')?.[1] ?? '';
  return ours.length === signature.length &&
    timingSafeEqual(Buffer.from(ours), Buffer.from(signature))
    ? undefined
    : refusal(
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided.',
      );
}
