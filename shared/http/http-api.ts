import type { MiddlewareObj } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../logger.ts';
import { recordRefusal } from '../observability/metrics.ts';
import { observeInvocation } from '../observability/observe-invocation.ts';
import { tracer } from '../observability/tracer.ts';
import type { ApiEvent } from './api-event.ts';
import { answerWithinLambdaLimit } from './answer-size.ts';
import { errorHandler } from './error-handler.ts';
import type { HttpError } from './http-errors.ts';
import type { ApiResult } from './responses.ts';

/** Ours when 5xx, the client's when 4xx. */
const outcomeOf = (status: number) => (status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'ok');

/**
 * Each request's log line, trace annotations and refusal metric, from its final status. The
 * annotations name the route template and the status, never a caller or a file.
 */
function requestOutcome(): MiddlewareObj<ApiEvent, ApiResult> {
  const recordOutcome = ({ event, response }: { event: ApiEvent; response?: ApiResult | null }) => {
    const status = response?.statusCode ?? 500;
    logger.info('Request handled', { status });
    tracer.putAnnotation('route', event.routeKey);
    tracer.putAnnotation('status', status);
    tracer.putAnnotation('outcome', outcomeOf(status));
    if (status >= 400) recordRefusal(status);
  };
  return {
    name: 'requestOutcome',
    before: ({ event }) => {
      logger.setCorrelationId(event.requestContext.requestId);
      logger.appendKeys({ route: event.routeKey });
    },
    after: recordOutcome,
    // Runs after errorHandler's onError (middy unwinds in reverse), so the status is final.
    onError: recordOutcome,
  };
}

export interface HttpApiOptions {
  /** The refusal of an answer over Lambda's limit, for a route whose answers grow with data. */
  readonly answerTooLarge?: () => HttpError;
}

/**
 * The stack every HTTP handler starts with: structured logs that carry the Lambda and API
 * Gateway request ids, the trace and metrics of the invocation, the request's outcome, the
 * answer's size measured against Lambda's limit (after the handler's own middlewares, so a
 * compressed answer is measured as sent), then the error mapper (registered before the
 * handler's own middlewares, so its onError runs first of these and sees their errors too).
 */
export const httpApi = (
  options: HttpApiOptions = {},
): [
  MiddlewareObj<ApiEvent, ApiResult>,
  MiddlewareObj<unknown, unknown>,
  MiddlewareObj<ApiEvent, ApiResult>,
  MiddlewareObj<unknown, ApiResult>,
  MiddlewareObj<unknown, ApiResult>,
] => [
  injectLambdaContext(logger, { resetKeys: true }),
  observeInvocation(),
  requestOutcome(),
  answerWithinLambdaLimit(options.answerTooLarge),
  errorHandler(),
];
