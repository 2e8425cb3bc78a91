import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/**
 * An S3 error answer: its status, `Code`, `Message` and the extra elements S3 adds for that
 * code, in S3's order. The codes, statuses and messages are S3's own ("Error responses",
 * https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html); where a message
 * below is S3's exact text for one case, the function that builds it says where it is from.
 */
export interface S3Error {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, string | number>>;
}

export const s3Error = (
  status: number,
  code: string,
  message: string,
  details?: Record<string, string | number>,
): S3Error => ({ status, code, message, ...(details === undefined ? {} : { details }) });

/** `2026-11-24T06:32:48Z`: how S3 writes times in its error details. */
const isoSeconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** No credentials at all, or a form with no policy: the bucket is private. */
export const accessDenied = (): S3Error => s3Error(403, 'AccessDenied', 'Access Denied');

/** A header S3 wants signed (`host`, every `x-amz-*`) that the signature leaves out. */
export const headersNotSigned = (names: readonly string[]): S3Error =>
  s3Error(403, 'AccessDenied', 'There were headers present in the request which were not signed', {
    HeadersNotSigned: names.join(', '),
  });

export const invalidAccessKeyId = (accessKeyId: string): S3Error =>
  s3Error(
    403,
    'InvalidAccessKeyId',
    'The AWS Access Key Id you provided does not exist in our records.',
    { AWSAccessKeyId: accessKeyId },
  );

export const signatureDoesNotMatch = (details: {
  readonly accessKeyId: string;
  readonly provided: string;
  readonly stringToSign: string;
  readonly canonicalRequest?: string;
}): S3Error =>
  s3Error(
    403,
    'SignatureDoesNotMatch',
    'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    {
      AWSAccessKeyId: details.accessKeyId,
      StringToSign: details.stringToSign,
      SignatureProvided: details.provided,
      ...(details.canonicalRequest === undefined
        ? {}
        : { CanonicalRequest: details.canonicalRequest }),
    },
  );

/** A presigned URL past `X-Amz-Date` + `X-Amz-Expires`. */
export const requestExpired = (expiresSeconds: number, expires: Date, now: Date): S3Error =>
  s3Error(403, 'AccessDenied', 'Request has expired', {
    'X-Amz-Expires': expiresSeconds,
    Expires: isoSeconds(expires),
    ServerTime: isoSeconds(now),
  });

/** A presigned URL dated later than the clock allows. */
export const requestNotYetValid = (signedAt: Date, now: Date): S3Error =>
  s3Error(403, 'AccessDenied', 'Request is not valid yet', {
    'X-Amz-Date': isoSeconds(signedAt),
    ServerTime: isoSeconds(now),
  });

export const requestTimeTooSkewed = (requestTime: string, now: Date): S3Error =>
  s3Error(
    403,
    'RequestTimeTooSkewed',
    'The difference between the request time and the current time is too large.',
    { RequestTime: requestTime, ServerTime: isoSeconds(now), MaxAllowedSkewMilliseconds: 900000 },
  );

export const missingDate = (): S3Error =>
  s3Error(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');

export const authorizationHeaderMalformed = (message: string): S3Error =>
  s3Error(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; ${message}`);

export const authorizationQueryParametersError = (message: string): S3Error =>
  s3Error(400, 'AuthorizationQueryParametersError', message);

export const invalidArgument = (
  message: string,
  argument?: { readonly name: string; readonly value: string },
): S3Error =>
  s3Error(
    400,
    'InvalidArgument',
    message,
    argument === undefined
      ? undefined
      : { ArgumentName: argument.name, ArgumentValue: argument.value },
  );

export const invalidRequest = (message: string): S3Error => s3Error(400, 'InvalidRequest', message);

export const contentSha256Mismatch = (claimed: string, computed: string): S3Error =>
  s3Error(
    400,
    'XAmzContentSHA256Mismatch',
    "The provided 'x-amz-content-sha256' header does not match what was computed.",
    { ClientComputedContentSHA256: claimed, S3ComputedContentSHA256: computed },
  );

/** A POST policy that is not the JSON S3 reads, or lacks what it must hold. */
export const invalidPolicyDocument = (message: string): S3Error =>
  s3Error(400, 'InvalidPolicyDocument', `Invalid Policy: ${message}`);

/** A form whose policy refuses it: expired, a condition failed, or a field no condition covers. */
export const invalidAccordingToPolicy = (reason: string): S3Error =>
  s3Error(403, 'AccessDenied', `Invalid according to Policy: ${reason}`);

export const entityTooLarge = (proposed: number, max: number): S3Error =>
  s3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', {
    ProposedSize: proposed,
    MaxSizeAllowed: max,
  });

export const entityTooSmall = (proposed: number, min: number): S3Error =>
  s3Error(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', {
    ProposedSize: proposed,
    MinSizeAllowed: min,
  });

export const maxPostPreDataLengthExceeded = (): S3Error =>
  s3Error(
    400,
    'MaxPostPreDataLengthExceeded',
    'Your POST request fields preceding the upload file were too large.',
  );

export const incorrectNumberOfFiles = (): S3Error =>
  s3Error(
    400,
    'IncorrectNumberOfFilesInPostRequest',
    'POST requires exactly one file upload per request.',
  );

export const malformedPostRequest = (): S3Error =>
  s3Error(
    400,
    'MalformedPOSTRequest',
    'The body of your POST request is not well-formed multipart/form-data.',
  );

export const preconditionFailed = (condition: string): S3Error =>
  s3Error(
    412,
    'PreconditionFailed',
    'At least one of the pre-conditions you specified did not hold',
    {
      Condition: condition,
    },
  );

/** Text in an element: only what XML requires escaped, as S3 writes it (quotes stay). */
export const escapeXml = (text: string): string =>
  text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c] ?? c);

/** S3's XML body for an error, with a request id of S3's shape. */
function s3ErrorXml(error: S3Error, requestId: string, hostId: string): string {
  const details = Object.entries(error.details ?? {})
    .map(([name, value]) => `<${name}>${escapeXml(String(value))}</${name}>`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${error.code}</Code><Message>${escapeXml(error.message)}</Message>${details}` +
    `<RequestId>${requestId}</RequestId><HostId>${hostId}</HostId></Error>`
  );
}

/** Sends an S3 error as S3 does: XML, with `x-amz-request-id` and `x-amz-id-2`. */
export function sendS3Error(
  response: ServerResponse,
  error: S3Error,
  headers: Readonly<Record<string, string>> = {},
): void {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const hostId = randomBytes(48).toString('base64');
  const body = s3ErrorXml(error, requestId, hostId);
  response.writeHead(error.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
    'x-amz-id-2': hostId,
    ...headers,
  });
  response.end(body);
}
