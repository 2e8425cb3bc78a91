import type { MiddlewareObj } from '@middy/core';
import { logger } from '../logger.ts';
import { isOutcome } from '../domain/outcome.ts';
import { HttpError } from './http-errors.ts';
import { outcomeAsHttpError } from './outcome-response.ts';
import { jsonResponse, type ApiResult } from './responses.ts';

/** AWS SDK errors that mean "try again shortly", not "we are broken". */
const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
  // Writes of one user's at once kept meeting on the same item (their erasure marker).
  'TransactionConflictException',
]);

/**
 * Whether the error, or one a library wrapped it in (Powertools' idempotency persistence
 * layer wraps the store's own errors), says "try again shortly".
 */
function isBusy(error: unknown): boolean {
  for (let depth = 0, next = error; depth < 4 && next instanceof Error; depth++) {
    if (THROTTLING.has(next.name)) return true;
    next = next.cause;
  }
  return false;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * The single place where errors become responses: domain outcomes and HTTP errors get their
 * FastAPI bodies; anything else is our fault. 5xx bodies never carry internals.
 */
function toErrorResponse(thrown: unknown): ApiResult {
  const error = isOutcome(thrown) ? outcomeAsHttpError(thrown) : thrown;
  if (error instanceof HttpError && error.statusCode < 500) {
    return jsonResponse(error.statusCode, error.body(), { ...error.headers });
  }
  // An outcome's 5xx (the access trail unavailable) is a refusal with its own Retry-After.
  if (error instanceof HttpError && isOutcome(thrown)) {
    logger.warn('Request refused: a dependency is unavailable', { error: thrown });
    return jsonResponse(error.statusCode, error.body(), { ...error.headers });
  }
  if (isBusy(error)) {
    logger.warn('Dependency throttled the request', { error });
    return jsonResponse(503, { detail: STATUS_TEXT[503] }, { 'retry-after': '1' });
  }
  const statusCode = error instanceof HttpError ? error.statusCode : 500;
  logger.error('Request failed', { error });
  return jsonResponse(statusCode, { detail: STATUS_TEXT[statusCode] ?? STATUS_TEXT[500] });
}

export function errorHandler(): MiddlewareObj<unknown, ApiResult> {
  return {
    name: 'errorHandler',
    onError: (request) => {
      request.response = toErrorResponse(request.error);
    },
  };
}
