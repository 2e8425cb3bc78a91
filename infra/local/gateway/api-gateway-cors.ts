import type { IncomingHttpHeaders } from 'node:http';
import type { CorsRule } from '../../stacks/cors-rules.ts';

/**
 * Whether an origin matches a pattern as S3 and API Gateway match one: the pattern itself,
 * or, with its one `*`, what starts and ends as the pattern does around the star
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ManageCorsUsing.html).
 */
export function originMatches(pattern: string, origin: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === origin;
  if (pattern.includes('*', star + 1)) throw new Error(`${pattern}: at most one * in an origin`);
  const [before, after] = [pattern.slice(0, star), pattern.slice(star + 1)];
  const long = origin.length >= before.length + after.length;
  return long && origin.startsWith(before) && origin.endsWith(after);
}

/**
 * The CORS headers API Gateway's HTTP API puts on an answer
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html): none
 * without an allowed `Origin`; a preflight (with `Access-Control-Request-Method`) the lists
 * and max age, whatever it asks for, as the browser holds the request against them; any other
 * request the exposed headers. An echoed origin goes with `Vary: Origin`.
 */
export function apiCorsHeaders(
  rule: CorsRule,
  request: { readonly method: string; readonly headers: IncomingHttpHeaders },
): Record<string, string> {
  const origin = request.headers.origin;
  if (origin === undefined || !rule.allowOrigins.some((p) => originMatches(p, origin))) return {};
  const allowOrigin: Record<string, string> = rule.allowOrigins.includes('*')
    ? { 'access-control-allow-origin': '*' }
    : { 'access-control-allow-origin': origin, vary: 'origin' };
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
    return {
      ...allowOrigin,
      'access-control-allow-methods': rule.allowMethods.join(','),
      'access-control-allow-headers': rule.allowHeaders.join(','),
      'access-control-max-age': String(rule.maxAgeSeconds),
    };
  }
  const expose = rule.exposeHeaders.join(',');
  return expose === '' ? allowOrigin : { ...allowOrigin, 'access-control-expose-headers': expose };
}

/** API Gateway's CORS headers in place of the integration's; a `Vary` of its own is kept. */
export function withApiCors(
  headers: Record<string, string>,
  cors: Record<string, string>,
): Record<string, string> {
  const kept = Object.fromEntries(
    Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith('access-control-')),
  );
  const vary = [kept.vary, cors.vary].filter((value) => value !== undefined).join(', ');
  return { ...kept, ...cors, ...(vary === '' ? {} : { vary }) };
}
