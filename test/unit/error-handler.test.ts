import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { CompletionInProgress } from '#shared/direct-uploads/complete-direct-upload.ts';
import {
  AccessDenied,
  Conflict,
  NotFound,
  type Outcome,
  RateLimited,
  RuleBroken,
} from '#shared/domain/outcome.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import {
  BadRequestError,
  HttpError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RequestValidationError,
  UnauthorizedError,
} from '#shared/http/http-errors.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';

const failingWith = (error: unknown) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .handler<ApiEvent, ApiResult>(() => {
      throw error;
    });

async function responseFor(error: unknown) {
  const result = await failingWith(error)(apiEvent({}), lambdaContext());
  return { status: result.statusCode, headers: result.headers, body: bodyOf(result) };
}

describe('one error middleware maps typed errors to FastAPI bodies', () => {
  it.each<[HttpError, number, unknown]>([
    [
      new BadRequestError('There was an error parsing the body'),
      400,
      { detail: 'There was an error parsing the body' },
    ],
    [new NotFoundError(), 404, { detail: 'Not Found' }],
    [
      new PayloadTooLargeError('File larger than 50000000 bytes'),
      413,
      { detail: 'File larger than 50000000 bytes' },
    ],
    [
      new RequestValidationError([
        { type: 'missing', loc: ['body'], msg: 'Field required', input: null },
      ]),
      422,
      { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] },
    ],
  ])('%s -> %i', async (error, status, body) => {
    const response = await responseFor(error);
    expect(response.status).toBe(status);
    expect(response.body).toEqual(body);
    expect(response.headers?.['content-type']).toBe('application/json');
  });

  it.each<[Outcome, number, unknown]>([
    [new NotFound(), 404, { detail: 'Not Found' }],
    [new NotFound('File not found: 7'), 404, { detail: 'File not found: 7' }],
    [new AccessDenied('Editors only'), 403, { detail: 'Editors only' }],
    [new Conflict('Try again'), 409, { detail: 'Try again' }],
    [new CompletionInProgress(), 409, { detail: 'The upload is being completed; try again' }],
    [new RuleBroken('file-not-empty', 'Empty'), 400, { detail: 'Empty' }],
    [new RuleBroken('file-size-limit', 'Too large'), 413, { detail: 'Too large' }],
    [new RuleBroken('file-named', 'a name is required'), 400, { detail: 'a name is required' }],
    [new RateLimited('Slow down', 5000), 429, { detail: 'Slow down' }],
  ])('domain outcome %s -> %i', async (outcome, status, body) => {
    const response = await responseFor(outcome);
    expect(response.status).toBe(status);
    expect(response.body).toEqual(body);
  });

  it.each([
    [5000, '5'],
    [5001, '6'],
    [1, '1'],
    [0, '1'],
    [59_999.5, '60'],
  ])(
    'a rate-limited outcome %s ms from its next token says Retry-After: %s',
    async (ms, header) => {
      const response = await responseFor(new RateLimited('Slow down', ms));
      expect(response).toEqual({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': header },
        body: { detail: 'Slow down' },
      });
    },
  );

  it('405 names the allowed methods', async () => {
    const response = await responseFor(new MethodNotAllowedError(['GET', 'POST']));
    expect(response).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
    expect(response.headers?.allow).toBe('GET, POST');
  });

  it("401 is the JWT authorizer's own body and header", async () => {
    const response = await responseFor(new UnauthorizedError('the token has expired'));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthorized' });
    expect(response.headers?.['www-authenticate']).toBe(
      'Bearer scope="" error="invalid_token" error_description="the token has expired"',
    );
  });

  it('an unexpected error is a bare 500 that carries nothing of the error', async () => {
    const response = await responseFor(
      new Error('ConditionalCheckFailed on table prod-files, key USER#1'),
    );
    expect(response).toEqual({
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: { detail: 'Internal Server Error' },
    });
  });

  it('a typed 5xx keeps its status but not its message', async () => {
    const response = await responseFor(new HttpError(503, 'bucket prod-files unreachable'));
    expect(response.body).toEqual({ detail: 'Service Unavailable' });
    expect(response.status).toBe(503);
  });

  it('throttling by a dependency is a 503 asking to retry, not a 500', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const response = await responseFor(throttled);
    expect(response).toEqual({
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
      body: { detail: 'Service Unavailable' },
    });
  });

  it('a busy answer a library wrapped is still a 503, not a 500', async () => {
    // Powertools' idempotency layer wraps its store's errors, a transaction conflict too.
    const conflict = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionConflictException',
    });
    const wrapped = new Error('Failed to put record for idempotency key', { cause: conflict });
    expect(await responseFor(wrapped)).toEqual({
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
      body: { detail: 'Service Unavailable' },
    });
  });

  it('a thrown non-Error value is still a 500', async () => {
    expect((await responseFor('boom')).status).toBe(500);
  });
});
