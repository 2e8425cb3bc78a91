import type { IncomingHttpHeaders } from 'node:http';
import {
  authorizationHeaderMalformed,
  authorizationQueryParametersError,
  headersNotSigned,
  invalidAccessKeyId,
  invalidArgument,
  invalidRequest,
  missingDate,
  requestExpired,
  requestNotYetValid,
  requestTimeTooSkewed,
  type S3Error,
  signatureDoesNotMatch,
} from './s3-errors.ts';
import {
  amzDate,
  computeSignature,
  type Credentials,
  MAX_SKEW_MS,
  queryParameters,
  sameSignature,
  signedHeaderValues,
} from '../sigv4-check.ts';

/**
 * S3's two ways of authenticating a request with Signature Version 4, checked as S3 checks
 * them, with the stage's one set of credentials:
 * - the `Authorization` header ("Authenticating Requests: Using the Authorization Header",
 *   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-auth-using-authorization-header.html):
 *   the signature covers the signed headers, and the payload hash is whatever the signed
 *   `x-amz-content-sha256` header says (a hex SHA-256, `UNSIGNED-PAYLOAD` or a streaming
 *   value, https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html);
 *   the caller checks a hex one against the body as it arrives;
 * - a presigned URL ("Authenticating Requests: Using Query Parameters",
 *   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html): the
 *   X-Amz-* parameters, a payload of `UNSIGNED-PAYLOAD`, and `X-Amz-Date` + `X-Amz-Expires`
 *   (at most 604800 s) past which it is "Request has expired".
 * A request with neither is anonymous: the caller refuses it (the bucket is private) unless
 * it is a POST form, which carries its own signature (s3-post-policy.ts).
 */
export type S3Authentication =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'signed'; readonly payloadHash: string }
  | { readonly kind: 'refused'; readonly error: S3Error };

export interface S3Expectations {
  readonly credentials: Credentials;
  readonly region: string;
  readonly now?: Date;
}

const SERVICE = 's3';
const QUERY_PARAMETERS = [
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Signature',
  'X-Amz-Date',
  'X-Amz-SignedHeaders',
  'X-Amz-Expires',
] as const;
/** S3's bound on a presigned URL's life: seven days. */
const MAX_EXPIRES_SECONDS = 604_800;
/** The values S3 takes in `x-amz-content-sha256`, besides a hex SHA-256. */
const PAYLOAD_KINDS = [
  'UNSIGNED-PAYLOAD',
  'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
  'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD',
  'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD-TRAILER',
];
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const MALFORMED_CREDENTIAL =
  'the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".';

const refused = (error: S3Error): S3Authentication => ({ kind: 'refused', error });

/**
 * S3 refuses a request whose signature leaves out `host` or an `x-amz-*` header it carries
 * (a copy source, a metadata directive): otherwise whoever holds a signed request could add
 * them. Checked as S3 does ("Signature Calculations for the Authorization Header",
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-header-based-auth.html).
 */
function headersLeftUnsigned(headers: IncomingHttpHeaders, signed: readonly string[]): string[] {
  const names = new Set(signed.map((name) => name.toLowerCase()));
  return ['host', ...Object.keys(headers).filter((name) => name.startsWith('x-amz-'))].filter(
    (name) => !names.has(name) && name in headers,
  );
}
const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

interface Credential {
  readonly accessKeyId: string;
  readonly day: string;
  readonly region: string;
  readonly service: string;
}

/** `AKID/20261124/us-east-1/s3/aws4_request`, or undefined. */
export function parseCredential(value: string): Credential | undefined {
  const match = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(value);
  if (match === null) return undefined;
  const [, accessKeyId = '', day = '', region = '', service = ''] = match;
  return { accessKeyId, day, region, service };
}

/** Splits a request target into its path and the raw query after `?`. */
export function splitTarget(url: string): { path: string; rawQuery: string } {
  const mark = url.indexOf('?');
  return mark < 0
    ? { path: url, rawQuery: '' }
    : { path: url.slice(0, mark), rawQuery: url.slice(mark + 1) };
}

export async function authenticateS3Request(
  request: { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders },
  expected: S3Expectations,
): Promise<S3Authentication> {
  const { path, rawQuery } = splitTarget(request.url);
  const query = queryParameters(rawQuery);
  const byHeader = request.headers.authorization !== undefined;
  const byQuery = 'X-Amz-Algorithm' in query || 'X-Amz-Signature' in query;
  if (byHeader && byQuery) {
    return refused(
      invalidArgument(
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
        { name: 'Authorization', value: request.headers.authorization ?? '' },
      ),
    );
  }
  const now = expected.now ?? new Date();
  if (byHeader) return byAuthorizationHeader(request, path, query, expected, now);
  if (byQuery) return byQueryParameters(request, path, query, expected, now);
  return { kind: 'anonymous' };
}

async function byAuthorizationHeader(
  request: { readonly method: string; readonly headers: IncomingHttpHeaders },
  path: string,
  query: Record<string, string | string[]>,
  expected: S3Expectations,
  now: Date,
): Promise<S3Authentication> {
  const authorization = request.headers.authorization ?? '';
  const space = authorization.indexOf(' ');
  const algorithm = space < 0 ? authorization : authorization.slice(0, space);
  if (algorithm !== 'AWS4-HMAC-SHA256') {
    return refused(
      invalidArgument('Unsupported Authorization Type', {
        name: 'Authorization',
        value: authorization,
      }),
    );
  }
  const components = new Map(
    authorization
      .slice(space + 1)
      .split(',')
      .map((component) => {
        const equals = component.indexOf('=');
        return [component.slice(0, equals).trim(), component.slice(equals + 1).trim()] as const;
      }),
  );
  const credentialText = components.get('Credential');
  const signedHeaderList = components.get('SignedHeaders');
  const provided = components.get('Signature');
  if (credentialText === undefined || signedHeaderList === undefined || provided === undefined) {
    return refused(
      authorizationHeaderMalformed(
        'the authorization header requires three components: Credential, SignedHeaders, and Signature.',
      ),
    );
  }
  const credential = parseCredential(credentialText);
  if (credential === undefined) return refused(authorizationHeaderMalformed(MALFORMED_CREDENTIAL));
  if (credential.accessKeyId !== expected.credentials.accessKeyId) {
    return refused(invalidAccessKeyId(credential.accessKeyId));
  }
  if (credential.region !== expected.region) {
    return refused(
      authorizationHeaderMalformed(
        `the region '${credential.region}' is wrong; expecting '${expected.region}'`,
      ),
    );
  }
  if (credential.service !== SERVICE) {
    return refused(
      authorizationHeaderMalformed(
        `the service '${credential.service}' is wrong; expecting '${SERVICE}'`,
      ),
    );
  }
  const payloadHash = single(request.headers['x-amz-content-sha256']);
  if (payloadHash === undefined) {
    return refused(
      invalidRequest('Missing required header for this request: x-amz-content-sha256'),
    );
  }
  if (!PAYLOAD_KINDS.includes(payloadHash) && !HEX_SHA256.test(payloadHash)) {
    return refused(
      invalidArgument(
        `x-amz-content-sha256 must be ${PAYLOAD_KINDS.join(', ')} or a valid sha256 value.`,
        { name: 'x-amz-content-sha256', value: payloadHash },
      ),
    );
  }
  const longDate = single(request.headers['x-amz-date']);
  const signedAt = amzDate(longDate);
  if (longDate === undefined || signedAt === undefined) return refused(missingDate());
  if (Math.abs(now.getTime() - signedAt.getTime()) > MAX_SKEW_MS) {
    return refused(requestTimeTooSkewed(longDate, now));
  }
  const refusal = await signatureRefusal(
    { method: request.method, path, query, headers: request.headers, payloadHash },
    { signedNames: signedHeaderList.split(';'), provided, accessKeyId: credential.accessKeyId },
    { expected, longDate },
  );
  return refusal ?? { kind: 'signed', payloadHash };
}

/**
 * The refusal a signature earns, or undefined when it is the one S3 would compute: a header
 * or presigned request alike, once its own fields have been read.
 */
async function signatureRefusal(
  request: {
    readonly method: string;
    readonly path: string;
    readonly query: Record<string, string | string[]>;
    readonly headers: IncomingHttpHeaders;
    readonly payloadHash: string;
  },
  signature: {
    readonly signedNames: string[];
    readonly provided: string;
    readonly accessKeyId: string;
  },
  signing: { readonly expected: S3Expectations; readonly longDate: string },
): Promise<S3Authentication | undefined> {
  const notSigned = headersLeftUnsigned(request.headers, signature.signedNames);
  if (notSigned.length > 0) return refused(headersNotSigned(notSigned));
  const ours = await computeSignature(
    { ...request, headers: signedHeaderValues(request.headers, signature.signedNames) },
    signing.expected.credentials,
    { longDate: signing.longDate, region: signing.expected.region, service: SERVICE },
  );
  if (sameSignature(ours.signature, signature.provided)) return undefined;
  return refused(
    signatureDoesNotMatch({
      accessKeyId: signature.accessKeyId,
      provided: signature.provided,
      stringToSign: ours.stringToSign,
      canonicalRequest: ours.canonicalRequest,
    }),
  );
}

async function byQueryParameters(
  request: { readonly method: string; readonly headers: IncomingHttpHeaders },
  path: string,
  query: Record<string, string | string[]>,
  expected: S3Expectations,
  now: Date,
): Promise<S3Authentication> {
  const value = (name: string) => single(query[name]);
  if (QUERY_PARAMETERS.some((name) => value(name) === undefined)) {
    return refused(
      authorizationQueryParametersError(
        'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
      ),
    );
  }
  if (value('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
    return refused(
      authorizationQueryParametersError('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"'),
    );
  }
  const credential = parseCredential(value('X-Amz-Credential') ?? '');
  if (credential === undefined) {
    return refused(
      authorizationQueryParametersError(
        `Error parsing the X-Amz-Credential parameter; ${MALFORMED_CREDENTIAL}`,
      ),
    );
  }
  if (credential.region !== expected.region) {
    return refused(
      authorizationQueryParametersError(
        `Error parsing the X-Amz-Credential parameter; the region '${credential.region}' is wrong; expecting '${expected.region}'`,
      ),
    );
  }
  const longDate = value('X-Amz-Date') ?? '';
  const signedAt = amzDate(longDate);
  if (signedAt === undefined) {
    return refused(
      authorizationQueryParametersError(
        "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"",
      ),
    );
  }
  const expiresText = value('X-Amz-Expires') ?? '';
  const expiresSeconds = Number(expiresText);
  if (!/^-?\d+$/.test(expiresText)) {
    return refused(authorizationQueryParametersError('X-Amz-Expires should be a number'));
  }
  if (expiresSeconds < 0) {
    return refused(authorizationQueryParametersError('X-Amz-Expires must be non-negative'));
  }
  if (expiresSeconds > MAX_EXPIRES_SECONDS) {
    return refused(
      authorizationQueryParametersError(
        `X-Amz-Expires must be less than a week (in seconds) that is ${MAX_EXPIRES_SECONDS}`,
      ),
    );
  }
  if (credential.accessKeyId !== expected.credentials.accessKeyId) {
    return refused(invalidAccessKeyId(credential.accessKeyId));
  }
  if (signedAt.getTime() - now.getTime() > MAX_SKEW_MS) {
    return refused(requestNotYetValid(signedAt, now));
  }
  const expires = new Date(signedAt.getTime() + expiresSeconds * 1000);
  if (now.getTime() > expires.getTime()) {
    return refused(requestExpired(expiresSeconds, expires, now));
  }
  const refusal = await signatureRefusal(
    {
      method: request.method,
      path,
      query,
      headers: request.headers,
      payloadHash: value('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
    },
    {
      signedNames: (value('X-Amz-SignedHeaders') ?? '').split(';'),
      provided: value('X-Amz-Signature') ?? '',
      accessKeyId: credential.accessKeyId,
    },
    { expected, longDate },
  );
  return refusal ?? { kind: 'signed', payloadHash: 'UNSIGNED-PAYLOAD' };
}
