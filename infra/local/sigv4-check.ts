import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ALGORITHM_IDENTIFIER,
  getCanonicalHeaders,
  getSigningKey,
  type SignatureV4,
  SignatureV4Base,
} from '@smithy/signature-v4';

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
  /** `null` before it is read: only the headers are checked, not yet the signature itself. */
  readonly body: Buffer | null;
}

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
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

/** The parts of a request its Signature Version 4 covers, as the server received them. */
export interface SignedParts {
  readonly method: string;
  /** The path as sent, which is the canonical URI the client signed (S3 escapes it once). */
  readonly path: string;
  /** The query, decoded; `X-Amz-Signature` is never part of the canonical query. */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** The signed headers only, names in lower case, values as received. */
  readonly headers: Readonly<Record<string, string>>;
  /** The canonical request's last line: a hex SHA-256, or `UNSIGNED-PAYLOAD` and the like. */
  readonly payloadHash: string;
}

export interface SigningScope {
  /** `20261124T063248Z` */
  readonly longDate: string;
  readonly region: string;
  readonly service: string;
}

export interface ComputedSignature {
  readonly signature: string;
  readonly canonicalRequest: string;
  readonly stringToSign: string;
}

type SmithyRequest = Parameters<SignatureV4['presign']>[0];

/**
 * The SDK's own canonical request and string to sign (its SignatureV4Base), over exactly the
 * parts the client said it signed: a server checks what was sent, not what it would send.
 */
class ReceivedRequestSigner extends SignatureV4Base {
  private readonly secret: Credentials;

  constructor(secret: Credentials) {
    super({
      credentials: secret,
      region: 'unused',
      service: 'unused',
      sha256: Sha256,
      uriEscapePath: false,
    });
    this.secret = secret;
  }

  async compute(parts: SignedParts, scope: SigningScope): Promise<ComputedSignature> {
    const request: SmithyRequest = {
      method: parts.method,
      protocol: 'http:',
      hostname: parts.headers.host ?? '',
      path: parts.path,
      query: { ...parts.query },
      headers: { ...parts.headers },
    };
    const canonicalHeaders = getCanonicalHeaders(
      request,
      undefined,
      new Set(Object.keys(parts.headers)),
    );
    const canonicalRequest = this.createCanonicalRequest(
      request,
      canonicalHeaders,
      parts.payloadHash,
    );
    const shortDate = scope.longDate.slice(0, 8);
    const credentialScope = `${shortDate}/${scope.region}/${scope.service}/aws4_request`;
    const stringToSign = await this.createStringToSign(
      scope.longDate,
      credentialScope,
      canonicalRequest,
      ALGORITHM_IDENTIFIER,
    );
    const key = await getSigningKey(Sha256, this.secret, shortDate, scope.region, scope.service);
    const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
    return { signature, canonicalRequest, stringToSign };
  }
}

/** The signature the holder of `credentials` would have sent for these parts. */
export function computeSignature(
  parts: SignedParts,
  credentials: Credentials,
  scope: SigningScope,
): Promise<ComputedSignature> {
  return new ReceivedRequestSigner(credentials).compute(parts, scope);
}

/** Two hex signatures equal, compared in constant time. */
export const sameSignature = (ours: string, theirs: string): boolean =>
  ours.length === theirs.length && timingSafeEqual(Buffer.from(ours), Buffer.from(theirs));

/**
 * A raw query string's parameters, decoded as SigV4 reads them: `+` is a plus, not a space,
 * and a name given twice keeps both values.
 */
export function queryParameters(rawQuery: string): Record<string, string | string[]> {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const query: Record<string, string | string[]> = {};
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decode(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? '' : decode(pair.slice(equals + 1));
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

/** A request's signed headers, by name, as one value each (repeats joined by commas). */
export function signedHeaderValues(
  headers: IncomingHttpHeaders,
  names: readonly string[],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) values[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return values;
}

/** `20261124T063248Z` as a date, or undefined. */
export function amzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  const date = new Date(`${y ?? ''}-${mo ?? ''}-${d ?? ''}T${h ?? ''}:${mi ?? ''}:${s ?? ''}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
/** AWS refuses a request signed more than 15 minutes from its own clock. */
export const MAX_SKEW_MS = 15 * 60 * 1000;

const refusal = (status: number, type: string, message: string): SigV4Refusal => ({
  status,
  type,
  message,
});

/**
 * Checks a request's Signature Version 4 `Authorization` header as AWS does
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html):
 * the SDK's own signing code signs the same request again, with the stage's credentials, and
 * the two signatures must be equal. The answers are the JSON APIs' (Lambda's): no signature is
 * `MissingAuthenticationTokenException`, another access key `UnrecognizedClientException`, a
 * different signature or a date over 15 minutes off `InvalidSignatureException`. S3 answers
 * otherwise: see s3-request-auth.ts. An x-amz-* header the signature does not cover is refused
 * as S3 refuses it, since SigV4 requires every one sent to be signed ("Any x-amz-* headers that
 * you plan to include in your request must also be added", CanonicalHeaders,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html): else a
 * captured request could be replayed as another (`X-Amz-Invocation-Type: Event`). Everything
 * but the signature itself is judged on the headers, so a request the headers refuse costs no
 * read of its body.
 */
export async function checkSigV4(
  request: ReceivedRequest,
  expected: {
    readonly credentials: Credentials;
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
  const longDate = Array.isArray(headerDate) ? headerDate[0] : headerDate;
  const signedAt = amzDate(longDate);
  const now = expected.now ?? new Date();
  if (
    longDate === undefined ||
    signedAt === undefined ||
    Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS
  ) {
    return refusal(
      403,
      'InvalidSignatureException',
      'Signature expired: the request is dated more than 15 minutes from now',
    );
  }
  if (region !== expected.region || service !== expected.service || day !== longDate.slice(0, 8)) {
    return refusal(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to a valid region and service: ${expected.region}/${expected.service}`,
    );
  }
  const signed = signedHeaders.split(';');
  if (
    Object.keys(request.headers).some((name) => name.startsWith('x-amz-') && !signed.includes(name))
  ) {
    return refusal(
      403,
      'InvalidSignatureException',
      'There were headers present in the request which were not signed',
    );
  }
  if (request.body === null) return undefined;
  const headers = signedHeaderValues(request.headers, signed);
  // The body's hash, as received: a header that claims another is a signature that fails.
  const bodyHash = createHash('sha256').update(request.body).digest('hex');
  if (headers['x-amz-content-sha256'] !== undefined) headers['x-amz-content-sha256'] = bodyHash;
  const [path = '/', rawQuery = ''] = request.url.split('?', 2);
  const ours = await computeSignature(
    {
      method: request.method,
      path,
      query: queryParameters(rawQuery),
      headers,
      payloadHash: bodyHash,
    },
    expected.credentials,
    { longDate, region: expected.region, service: expected.service },
  );
  return sameSignature(ours.signature, signature)
    ? undefined
    : refusal(
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided.',
      );
}
