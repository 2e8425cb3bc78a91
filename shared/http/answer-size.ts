import type { MiddlewareObj } from '@middy/core';
import { logger } from '../logger.ts';
import { recordMetric } from '../observability/metrics.ts';
import type { HttpError } from './http-errors.ts';
import type { ApiResult } from './responses.ts';

/**
 * Lambda's largest synchronous answer: 6 MB for the response, counted on the result as the
 * runtime serializes it (JSON.stringify of what the handler returned, so a body is counted
 * with its JSON escaping). Beyond it Lambda reports Function.ResponseSizeTooLarge, which API
 * Gateway answers 500 {"message":"Internal Server Error"}, and the function's own log says
 * nothing failed ("Lambda quotas",
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html; the exact figure,
 * 100 bytes over the request's 6 MiB, is Lambda's own message "Response payload size exceeded
 * maximum allowed payload size (6291556 bytes)").
 */
export const LAMBDA_MAX_RESPONSE_BYTES = 6 * 1024 * 1024 + 100;

/** The result's size as the Node.js runtime posts it to Lambda (`undefined` goes as `null`). */
export function resultBytes(result: unknown): number {
  // JSON.stringify gives undefined for undefined (and a function), though typed as a string.
  const json = JSON.stringify(result) as string | undefined;
  return Buffer.byteLength(json ?? 'null');
}

/** No character takes more than six bytes in JSON (`\u001f`): small answers need no count. */
const MAX_BYTES_PER_CHARACTER = 6;
const ROOM_FOR_HEADERS = 64 * 1024;

/**
 * Measures each answer before Lambda does, so one that Lambda would refuse is ours to answer
 * and to log: `refusal` for a route whose answers grow with the caller's data (a list says
 * how to page), a 500 otherwise (an answer no route should give).
 */
export function answerWithinLambdaLimit(
  refusal?: () => HttpError,
): MiddlewareObj<unknown, ApiResult> {
  return {
    name: 'answerWithinLambdaLimit',
    after: ({ response }) => {
      const chars = response?.body?.length ?? 0;
      if (chars * MAX_BYTES_PER_CHARACTER + ROOM_FOR_HEADERS <= LAMBDA_MAX_RESPONSE_BYTES) return;
      const bytes = resultBytes(response);
      if (bytes <= LAMBDA_MAX_RESPONSE_BYTES) return;
      recordMetric('AnswersTooLarge');
      logger.warn("An answer over Lambda's limit was refused", {
        bytes,
        limit: LAMBDA_MAX_RESPONSE_BYTES,
        encoding: response?.headers?.['Content-Encoding'] ?? 'identity',
      });
      throw refusal?.() ?? new Error(`An answer of ${String(bytes)} bytes, over Lambda's limit`);
    },
  };
}
