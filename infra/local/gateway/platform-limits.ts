import { LAMBDA_MAX_RESPONSE_BYTES } from '#shared/http/answer-size.ts';

export { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';

/**
 * The limits API Gateway's HTTP API and Lambda hold a request and a response to, and what
 * they answer when one is over, so that the local stage refuses what AWS would. The sources,
 * and what is less than certain: docs/local-stage-limits.md.
 */

/** HTTP API payload: 10 MiB of raw body (http-api-quotas.html). */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Lambda's synchronous event: 6 MiB of JSON, a binary body in it base64-encoded. */
export const LAMBDA_MAX_REQUEST_BYTES = 6 * 1024 * 1024;

/**
 * The multipart limit the docs state: 4.7 MB, what passes in Lambda's 6 MiB event once
 * base64-encoded beside the headers and claims (test/e2e/platform-limits.test.ts finds the
 * local stage's exact largest).
 */
export const MULTIPART_UPLOAD_MAX_FILE_BYTES = 4_700_000;

/** What the platform sends instead of the function's answer. */
export interface PlatformRefusal {
  readonly status: number;
  /** API Gateway's own JSON body. */
  readonly body: { readonly message: string };
  /** Beyond `content-type: application/json` and the request id, which every refusal has. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A body over 10 MiB: the function never runs; the connection closes once it is read. */
export function refuseRequestBody(bytes: number): PlatformRefusal | undefined {
  return bytes > API_GATEWAY_MAX_BODY_BYTES
    ? {
        status: 413,
        body: { message: 'Request Entity Too Large' },
        headers: { connection: 'close' },
      }
    : undefined;
}

/** An event over 6 MiB: Lambda refuses the invocation and API Gateway passes its 413 on. */
export function refuseEvent(eventBytes: number): PlatformRefusal | undefined {
  return eventBytes > LAMBDA_MAX_REQUEST_BYTES
    ? { status: 413, body: { message: 'Request Entity Too Large' }, headers: {} }
    : undefined;
}

/** A result over 6 MiB + 100 bytes: the function ran, but the client gets a failed integration. */
export function refuseResult(resultBytes: number): PlatformRefusal | undefined {
  return resultBytes > LAMBDA_MAX_RESPONSE_BYTES
    ? { status: 500, body: { message: 'Internal Server Error' }, headers: {} }
    : undefined;
}

/** The event's size as Lambda's Invoke receives it: its JSON, in UTF-8 bytes. */
export const eventBytes = (event: unknown): number => Buffer.byteLength(JSON.stringify(event));

/** HTTP API's integration timeout (30 s, not 29 as a REST API's); a cold start counts. */
export const API_GATEWAY_INTEGRATION_TIMEOUT_MS = 30_000;

/** The function ran past its own timeout: a failed Lambda integration. */
export const FUNCTION_TIMED_OUT: PlatformRefusal = {
  status: 500,
  body: { message: 'Internal Server Error' },
  headers: {},
};

/** No answer within the integration timeout: API Gateway stops waiting. */
export const INTEGRATION_TIMED_OUT: PlatformRefusal = {
  status: 503,
  body: { message: 'Service Unavailable' },
  headers: {},
};
