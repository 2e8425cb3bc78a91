import type { MiddlewareObj } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logger } from '../logger.ts';
import type { ApiEvent } from './api-event.ts';
import { errorHandler } from './error-handler.ts';
import type { ApiResult } from './responses.ts';

function requestLogging(): MiddlewareObj<ApiEvent, ApiResult> {
  return {
    name: 'requestLogging',
    before: ({ event }) => {
      logger.setCorrelationId(event.requestContext.requestId);
      logger.appendKeys({ route: event.routeKey });
    },
    after: ({ response }) => {
      logger.info('Request handled', { status: response?.statusCode });
    },
    // Runs after errorHandler's onError (middy unwinds in reverse), so the status is final.
    onError: ({ response }) => {
      logger.info('Request handled', { status: response?.statusCode });
    },
  };
}

/**
 * The stack every HTTP handler starts with: structured logs that carry the Lambda and API
 * Gateway request ids, then the error mapper (registered before the handler's own
 * middlewares, so its onError runs last and sees their errors too).
 */
export const httpApi = (): [
  MiddlewareObj<ApiEvent, ApiResult>,
  MiddlewareObj<ApiEvent, ApiResult>,
  MiddlewareObj<unknown, ApiResult>,
] => [injectLambdaContext(logger, { resetKeys: true }), requestLogging(), errorHandler()];
