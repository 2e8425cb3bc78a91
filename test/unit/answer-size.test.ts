import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { LAMBDA_MAX_RESPONSE_BYTES, resultBytes } from '#shared/http/answer-size.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { LIST_TOO_LARGE_DETAIL, listTooLarge } from '#shared/http/list-too-large.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';

/** A JSON answer of a string of `chars` characters. */
const answering = (chars: number, options: Parameters<typeof httpApi>[0] = {}) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi(options))
    .handler<ApiEvent, ApiResult>(() => Promise.resolve(jsonResponse(200, 'x'.repeat(chars))));

describe("answers measured against Lambda's 6 MB before Lambda does", () => {
  it('lets through an answer of exactly the limit', async () => {
    const overhead = resultBytes(jsonResponse(200, ''));
    const result = await answering(LAMBDA_MAX_RESPONSE_BYTES - overhead)(
      apiEvent({}),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(200);
    expect(resultBytes(result)).toBe(LAMBDA_MAX_RESPONSE_BYTES);
  });

  it("refuses a list's answer one byte over with the list's 400", async () => {
    const overhead = resultBytes(jsonResponse(200, ''));
    const handler = answering(LAMBDA_MAX_RESPONSE_BYTES - overhead + 1, {
      answerTooLarge: listTooLarge,
    });
    const result = await handler(apiEvent({}), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toEqual({ detail: LIST_TOO_LARGE_DETAIL });
  });

  it("answers any other route's oversized answer as our fault: a bare 500", async () => {
    const result = await answering(LAMBDA_MAX_RESPONSE_BYTES)(apiEvent({}), lambdaContext());
    expect(result.statusCode).toBe(500);
    expect(bodyOf(result)).toEqual({ detail: 'Internal Server Error' });
  });

  it('counts JSON escaping as the runtime does', async () => {
    // Each quote is two bytes once the result is serialized.
    const overhead = resultBytes(jsonResponse(200, ''));
    const quotes = Math.ceil((LAMBDA_MAX_RESPONSE_BYTES - overhead) / 4) + 1;
    const handler = middy<ApiEvent, ApiResult>()
      .use(httpApi({ answerTooLarge: listTooLarge }))
      .handler<ApiEvent, ApiResult>(() => Promise.resolve(jsonResponse(200, '"'.repeat(quotes))));
    const result = await handler(apiEvent({}), lambdaContext());
    expect(result.statusCode).toBe(400);
  });
});
