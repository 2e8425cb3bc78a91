import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { TrailUnavailable } from '#shared/domain/outcome.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';

describe('the access trail unavailable', () => {
  it("is answered as a throttled dependency is: 503, FastAPI's body, Retry-After: 1", async () => {
    const handler = middy<ApiEvent, ApiResult>()
      .use(httpApi())
      .handler<ApiEvent, ApiResult>(() => {
        throw new TrailUnavailable();
      });
    const result = await handler(apiEvent({}), lambdaContext());
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['retry-after']).toBe('1');
    // Its reason is for the operator CLI and the log, never the body.
    expect(bodyOf(result)).toEqual({ detail: 'Service Unavailable' });
  });
});
