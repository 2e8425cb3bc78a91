import type { IncomingHttpHeaders } from 'node:http';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import { originAllowed } from './cors-origin-match.ts';

/**
 * The CORS headers API Gateway's HTTP API puts on an answer, given its CORS configuration
 * ("Configure CORS for HTTP APIs in API Gateway",
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html):
 *
 * - only a request with an `Origin` gets any, and a preflight only with `Origin` and
 *   `Access-Control-Request-Method` too; an origin the configuration does not allow gets none;
 * - a preflight gets the allowed methods and headers and the max age; any other request the
 *   exposed headers; both the origin (`*` when `*` is configured, else the request's own);
 * - API Gateway ignores CORS headers the integration sends: the caller drops them
 *   (`withoutIntegrationCors`).
 *
 * Which methods and headers a preflight asks for does not change the answer: the browser
 * holds the request against the lists and refuses it itself. `Vary: Origin` goes with an
 * echoed origin, so no cache serves one origin's answer to another.
 */
export function apiCorsHeaders(
  rule: CorsRule,
  request: { readonly method: string; readonly headers: IncomingHttpHeaders },
): Record<string, string> {
  const origin = request.headers.origin;
  if (origin === undefined || !originAllowed(rule.allowOrigins, origin)) return {};
  const preflight =
    request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
  const allowOrigin: Record<string, string> = rule.allowOrigins.includes('*')
    ? { 'access-control-allow-origin': '*' }
    : { 'access-control-allow-origin': origin, vary: 'origin' };
  if (preflight) {
    return {
      ...allowOrigin,
      'access-control-allow-methods': rule.allowMethods.join(','),
      'access-control-allow-headers': rule.allowHeaders.join(','),
      'access-control-max-age': String(rule.maxAgeSeconds),
    };
  }
  return rule.exposeHeaders.length === 0
    ? allowOrigin
    : { ...allowOrigin, 'access-control-expose-headers': rule.exposeHeaders.join(',') };
}

/** An integration's headers without the CORS ones, which API Gateway ignores once it has CORS. */
export function withoutIntegrationCors(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith('access-control-')),
  );
}
