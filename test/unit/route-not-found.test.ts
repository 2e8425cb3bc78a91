/**
 * RouteNotFound's answers to paths with long runs of slashes (issue 41, finding 5). What such
 * a path costs is `npm run bench -- cpu`'s figure; these hold the answers.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '#functions/route-not-found/handler.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';

const SLASHES = '/'.repeat(15_500);

/** A GET no route matches, as API Gateway hands it to `$default`. */
function unmatched(path: string, rawQueryString = ''): ApiEvent {
  const event = apiEvent({ routeKey: '$default' });
  return {
    ...event,
    rawPath: path,
    rawQueryString,
    requestContext: {
      ...event.requestContext,
      http: { ...event.requestContext.http, method: 'GET', path },
    },
  };
}

describe('RouteNotFound on runs of slashes', () => {
  it('answers 404 to 15,500 slashes before a last segment and its trailing slash', async () => {
    const result = await handler(unmatched(`/${SLASHES}a/`), lambdaContext());
    expect({ status: result.statusCode, body: bodyOf(result) }).toEqual({
      status: 404,
      body: { detail: 'Not Found' },
    });
  });

  it('redirects a route followed by 15,500 slashes to the route, query kept', async () => {
    const result = await handler(
      unmatched(`/api/v1/user/me/file${SLASHES}`, 'limit=5'),
      lambdaContext(),
    );
    expect({ status: result.statusCode, headers: result.headers }).toMatchObject({
      status: 307,
      headers: { location: '/api/v1/user/me/file?limit=5' },
    });
  });

  it('answers 404 to a path of slashes alone', async () => {
    const result = await handler(unmatched(`/${SLASHES}`), lambdaContext());
    expect(result.statusCode).toBe(404);
  });
});
