import { LAMBDA_MAX_RESPONSE_BYTES } from '#shared/http/answer-size.ts';

export { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';

/**
 * The size limits the deployed platform (API Gateway's HTTP API in front of Lambda) holds a
 * request and a response to, and what it answers when one is over. The local gateway applies
 * them so that a request the platform would refuse is refused locally too, with the same
 * status and body. docs/local-stage-limits.md has the sources and what is less than certain.
 */

/**
 * API Gateway HTTP API: "Payload size: 10 MB", not adjustable ("Quotas for configuring and
 * running an HTTP API in API Gateway",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
 * The MB is a MiB: API Gateway's refusal of a larger body (a REST API's, behind CloudFront)
 * reads "HTTP content length exceeded 10485760 bytes."
 * (https://github.com/koki-develop/lgtm-generator/issues/10).
 * Counted on the raw request body, before any base64 encoding.
 */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Lambda, synchronous invocation: "6 MB each for request and response" ("Lambda quotas",
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). For the request
 * that is 6 MiB of event JSON, exactly: Invoke answers 413 RequestEntityTooLargeException
 * "Request must be smaller than 6291456 bytes for the InvokeFunction operation"
 * (https://zaccharles.medium.com/deep-dive-lambdas-request-payload-size-limit-2-2-6350c1ae5577),
 * and API Gateway logs "6294149 byte payload is too large for the RequestResponse invocation
 * type (limit 6291456 bytes)"
 * (https://theburningmonk.com/2020/04/hit-the-6mb-lambda-payload-limit-heres-what-you-can-do/).
 * The event carries a binary body base64-encoded (see api-gateway-event.ts), so a multipart
 * upload reaches it at 4/3 of its size (MULTIPART_UPLOAD_MAX_FILE_BYTES below).
 */
export const LAMBDA_MAX_REQUEST_BYTES = 6 * 1024 * 1024;

/**
 * The multipart limit the docs state, in their words: multipart uploads take files up to
 * 4.7 MB (4,700,000 bytes) on every stage; larger files take the direct upload. The limit is
 * Lambda's 6 MiB (6,291,456-byte) event, in which API Gateway puts the form base64-encoded
 * (4 bytes for every 3) beside the request's headers and token claims. The largest file that
 * passes is a little more and moves with them: about 4,716,800 bytes on the local stage with
 * short names and a local token; every 4 bytes of headers or claims take 3 bytes off it, every
 * byte of filename or other form fields one. No multipart upload of a file over 4,718,592
 * bytes (3/4 of 6 MiB) passes. test/e2e/platform-limits.test.ts finds the local stage's largest.
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

/**
 * A body over 10 MiB: 413 {"message":"Request Entity Too Large"}, and the function never
 * runs. The local gateway keeps none of the body past the limit (none at all on a declared
 * length), reads the rest and drops it, within bounds (request-body.ts), so that every client
 * reads the answer, then closes the connection.
 */
export function refuseRequestBody(bytes: number): PlatformRefusal | undefined {
  return bytes > API_GATEWAY_MAX_BODY_BYTES
    ? {
        status: 413,
        body: { message: 'Request Entity Too Large' },
        headers: { connection: 'close' },
      }
    : undefined;
}

/**
 * An event over Lambda's 6 MiB: Lambda refuses the invocation (413
 * RequestEntityTooLargeException) and API Gateway passes the 413 on; the function never runs.
 * AWS's own emulator answers it with a 413 "Request Entity Too Large" in HTTP API mode too
 * (https://github.com/aws/aws-lambda-dotnet/pull/1990); the body is taken to be that of the
 * 10 MiB refusal. Evidence is thinnest here: a REST API is reported to say
 * {"message": "Request Too Long"} (https://github.com/koki-develop/lgtm-generator/issues/10).
 */
export function refuseEvent(eventBytes: number): PlatformRefusal | undefined {
  return eventBytes > LAMBDA_MAX_REQUEST_BYTES
    ? { status: 413, body: { message: 'Request Entity Too Large' }, headers: {} }
    : undefined;
}

/**
 * A result over Lambda's 6 MiB + 100 bytes: the function ran (and whatever it stored stays
 * stored), but Lambda reports Function.ResponseSizeTooLarge instead of the result, which an
 * HTTP API answers as any failed Lambda integration: 500 {"message":"Internal Server Error"}
 * ("Troubleshooting issues with HTTP API Lambda integrations",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html).
 */
export function refuseResult(resultBytes: number): PlatformRefusal | undefined {
  return resultBytes > LAMBDA_MAX_RESPONSE_BYTES
    ? { status: 500, body: { message: 'Internal Server Error' }, headers: {} }
    : undefined;
}

/** The event's size as Lambda's Invoke receives it: its JSON, in UTF-8 bytes. */
export const eventBytes = (event: unknown): number => Buffer.byteLength(JSON.stringify(event));

/**
 * API Gateway HTTP API: "Maximum integration timeout: 30 seconds", not adjustable ("Quotas
 * for configuring and running an HTTP API in API Gateway",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html). 29 s is
 * a REST API's default, not an HTTP API's
 * (https://github.com/awsdocs/amazon-api-gateway-developer-guide/pull/74). It runs from the
 * call to Lambda, so a cold start counts against it, where it does not count against the
 * function's own timeout.
 */
export const API_GATEWAY_INTEGRATION_TIMEOUT_MS = 30_000;

/**
 * The function ran past its own timeout (its declaration's): Lambda stops it and reports
 * `Sandbox.Timedout` as a function error, which an HTTP API answers as any failed Lambda
 * integration: 500 {"message":"Internal Server Error"} ("Troubleshooting issues with HTTP API
 * Lambda integrations",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html;
 * "Lambda timeouts get converted to 500 Internal Errors in API Gateway", with an HTTP API,
 * https://github.com/denoland/deno_registry2/issues/87).
 */
export const FUNCTION_TIMED_OUT: PlatformRefusal = {
  status: 500,
  body: { message: 'Internal Server Error' },
  headers: {},
};

/**
 * No answer within the integration timeout, whatever the function's own: API Gateway stops
 * waiting and answers 503 {"message":"Service Unavailable"} (an HTTP API's answer at its
 * timeout: https://github.com/cortexlabs/cortex/issues/1225; a function still running when it
 * comes "get[s] a 503 with a successful lambda execution":
 * https://github.com/serverless/serverless/issues/11222). Only a function whose timeout is
 * 30 s or more, or a cold start that eats into the 30 s, meets it: every route's function
 * here stops sooner (its declaration's timeout, functions/<name>/function.ts).
 */
export const INTEGRATION_TIMED_OUT: PlatformRefusal = {
  status: 503,
  body: { message: 'Service Unavailable' },
  headers: {},
};
