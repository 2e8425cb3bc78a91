import { LAMBDA_MAX_RESPONSE_BYTES } from '#shared/http/answer-size.ts';

export { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';

// What API Gateway's HTTP API and Lambda refuse, answered as they answer it; the sources and
// what is less than certain: docs/local-stage-limits.md.

/** HTTP API payload: 10 MiB of raw body. */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Lambda's synchronous event: 6 MiB of JSON, a binary body in it base64-encoded. */
export const LAMBDA_MAX_REQUEST_BYTES = 6 * 1024 * 1024;
/** The docs' multipart limit; test/hardening/platform-limits.test.ts finds the stage's exact one. */
export const MULTIPART_UPLOAD_MAX_FILE_BYTES = 4_700_000;
/** HTTP API's integration timeout (30 s, not a REST API's 29); a cold start counts. */
export const API_GATEWAY_INTEGRATION_TIMEOUT_MS = 30_000;

/** What the platform sends instead of the function's answer: API Gateway's own JSON. */
export interface PlatformRefusal {
  readonly status: number;
  readonly body: { readonly message: string };
  /** Beyond `content-type` and the request id, which every refusal has. */
  readonly headers: Readonly<Record<string, string>>;
}

const refusal = (status: number, message: string, headers = {}): PlatformRefusal => ({
  status,
  body: { message },
  headers,
});

/** A body over 10 MiB: the function never runs; the connection closes once it is read. */
export const refuseRequestBody = (bytes: number) =>
  bytes > API_GATEWAY_MAX_BODY_BYTES
    ? refusal(413, 'Request Entity Too Large', { connection: 'close' })
    : undefined;

/** An event over 6 MiB: Lambda refuses the invocation and API Gateway passes its 413 on. */
export const refuseEvent = (eventBytes: number) =>
  eventBytes > LAMBDA_MAX_REQUEST_BYTES ? refusal(413, 'Request Entity Too Large') : undefined;

/** A result over 6 MiB + 100 bytes: the function ran, but the integration failed. */
export const refuseResult = (resultBytes: number) =>
  resultBytes > LAMBDA_MAX_RESPONSE_BYTES ? refusal(500, 'Internal Server Error') : undefined;

// Its JSON's UTF-8 bytes, as Lambda's Invoke receives it. A base64 body is its own JSON: not
// copied to be measured (6 MB each time was most of the gateway's CPU).
export const eventBytes = ({ body, ...rest }: { body?: string; isBase64Encoded?: boolean }) =>
  rest.isBase64Encoded === true && body !== undefined
    ? Buffer.byteLength(JSON.stringify({ ...rest, body: '' })) + body.length
    : Buffer.byteLength(JSON.stringify({ ...rest, body }));

/** The function ran past its own timeout: a failed Lambda integration. */
export const FUNCTION_TIMED_OUT = refusal(500, 'Internal Server Error');
/** No answer within the integration timeout: API Gateway stops waiting. */
export const INTEGRATION_TIMED_OUT = refusal(503, 'Service Unavailable');
