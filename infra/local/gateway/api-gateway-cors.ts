import type { IncomingHttpHeaders } from 'node:http';
import type { CorsRule } from '../../stacks/cors-rules.ts';

/**
 * Whether an origin matches an allowed-origin pattern, as S3 matches a CORS rule's
 * AllowedOrigin: the pattern itself, or, with its one `*`, anything that starts with what
 * comes before the star and ends with what comes after
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ManageCorsUsing.html). API
 * Gateway's `*`, `http://*` and `https://*` are the same rule.
 */
export function originMatches(pattern: string, origin: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === origin;
  if (pattern.includes('*', star + 1)) throw new Error(`${pattern}: at most one * in an origin`);
  const before = pattern.slice(0, star);
  const after = pattern.slice(star + 1);
  return (
    origin.length >= before.length + after.length &&
    origin.startsWith(before) &&
    origin.endsWith(after)
  );
}

/** Whether any of the patterns admits the origin. */
export const originAllowed = (patterns: readonly string[], origin: string): boolean =>
  patterns.some((pattern) => originMatches(pattern, origin));

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
