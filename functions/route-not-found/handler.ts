import middy from '@middy/core';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { MethodNotAllowedError, NotFoundError } from '#shared/http/http-errors.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import type { RoutePattern } from '#shared/api/routes.ts';

/** The routes' methods and paths, compiled in by the bundler (`bundleConstantsOf`). */
declare const ROUTE_TABLE: string | undefined;

/**
 * Unbundled (the local stage, tests) the functions list itself; the deployed bundle holds only
 * the compiled table, not every route's operation.
 */
const routes: readonly RoutePattern[] =
  typeof ROUTE_TABLE === 'string'
    ? (JSON.parse(ROUTE_TABLE) as RoutePattern[])
    : (await import('../service-functions.ts')).API_ROUTES;
const match = createRouteMatcher(routes);

const SLASH = 0x2f;

/**
 * Where the path's trailing slashes begin, found from its end: `/\/+$/` tried each start in
 * a run of slashes and scanned the run to its end from each, so `/` + 15,500 slashes + `a/`
 * cost a quarter of a second on a path anyone may send (issue 41).
 */
function endOfTrailingSlashes(path: string): number {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === SLASH) end--;
  return end;
}

/**
 * Where `/api/v1/x/` would go once its trailing slash is dropped, as FastAPI redirects: path
 * and query only. FastAPI builds an absolute URL from the request's Host, which is the
 * client's to choose; a relative one (RFC 9110, 10.2.2) sends every client to the same
 * host it asked, and no one anywhere else.
 */
function withoutTrailingSlash(event: ApiEvent): string | undefined {
  const path = event.rawPath;
  if (path.length <= 1 || !path.endsWith('/')) return undefined;
  const stripped = path.slice(0, endOfTrailingSlashes(path));
  if (match(event.requestContext.http.method, stripped).kind === 'none') return undefined;
  const query = event.rawQueryString === '' ? '' : `?${event.rawQueryString}`;
  return `${stripped}${query}`;
}

/**
 * A browser's CORS preflight. API Gateway hands it to `$default` like any unmatched request
 * and adds the stage's `Access-Control-*` headers to what the integration answers ("Configure
 * CORS for HTTP APIs", the `$default` route section); FastAPI without CORS middleware would
 * answer 405, which a browser treats as a refusal.
 */
const isCorsPreflight = (event: ApiEvent): boolean =>
  event.requestContext.http.method === 'OPTIONS' &&
  event.headers.origin !== undefined &&
  event.headers['access-control-request-method'] !== undefined;

/**
 * API Gateway's `$default` route: no route matched method and path. Answers a CORS preflight
 * with 204 (the stage adds the headers), else as FastAPI did: 405 when the path exists under
 * another method, a 307 to the path without its trailing slash, else 404.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .handler((event): ApiResult => {
    if (isCorsPreflight(event)) return { statusCode: 204, body: '' };
    const found = match(event.requestContext.http.method, event.rawPath);
    if (found.kind === 'wrong-method') throw new MethodNotAllowedError(found.allowed);
    const location = withoutTrailingSlash(event);
    if (location !== undefined) {
      return { statusCode: 307, headers: { location }, body: '' };
    }
    throw new NotFoundError();
  });
