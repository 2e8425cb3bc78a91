import type { IncomingHttpHeaders } from 'node:http';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import { originMatches } from '../gateway/api-gateway-cors.ts';
import type { S3Error } from './s3-errors.ts';

/**
 * S3's answer to a CORS preflight, from the bucket's CORS rules ("How does Amazon S3
 * evaluate the CORS configuration on a bucket?",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html): the first rule whose
 * AllowedOrigin matches `Origin`, whose AllowedMethod is `Access-Control-Request-Method`, and
 * whose AllowedHeaders match every header `Access-Control-Request-Headers` names. A preflight
 * no rule matches is a 403, with the XML S3 sends for it; a matched one names the origin, the
 * rule's methods and the requested headers, and varies on all three request headers.
 */
export type S3Preflight =
  | { readonly kind: 'allowed'; readonly headers: Record<string, string> }
  | { readonly kind: 'refused'; readonly error: S3Error };

const refused = (status: number, code: string, message: string): S3Preflight => ({
  kind: 'refused',
  error: { status, code, message, ...(status === 403 ? { details: PREFLIGHT_DETAILS } : {}) },
});
const PREFLIGHT_DETAILS = { Method: 'OPTIONS', ResourceType: 'OBJECT' } as const;

const S3_CORS_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

export function answerS3Preflight(
  rules: readonly CorsRule[],
  headers: IncomingHttpHeaders,
): S3Preflight {
  const origin = headers.origin;
  const method = headers['access-control-request-method'];
  if (origin === undefined) {
    return refused(400, 'BadRequest', 'Insufficient information. Origin request header needed.');
  }
  if (method === undefined) {
    return refused(400, 'BadRequest', 'Invalid Access-Control-Request-Method: null');
  }
  if (rules.length === 0) {
    return refused(403, 'CORSResponse', 'CORS is not enabled for this bucket.');
  }
  const requested = (headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const rule = ruleFor(rules, origin, method, requested);
  if (rule === undefined) {
    return refused(
      403,
      'AccessForbidden',
      "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
    );
  }
  return {
    kind: 'allowed',
    headers: {
      'access-control-allow-origin': rule.allowOrigins.includes('*') ? '*' : origin,
      'access-control-allow-methods': rule.allowMethods.join(', '),
      ...(requested.length === 0 ? {} : { 'access-control-allow-headers': requested.join(', ') }),
      ...(rule.exposeHeaders.length === 0
        ? {}
        : { 'access-control-expose-headers': rule.exposeHeaders.join(', ') }),
      'access-control-max-age': String(rule.maxAgeSeconds),
      vary: S3_CORS_VARY,
    },
  };
}

/** The first rule that admits the origin, the method and every header asked for. */
const ruleFor = (
  rules: readonly CorsRule[],
  origin: string,
  method: string,
  requested: readonly string[] = [],
) =>
  rules.find(
    (candidate) =>
      candidate.allowOrigins.some((pattern) => originMatches(pattern, origin)) &&
      candidate.allowMethods.includes(method) &&
      requested.every((name) =>
        candidate.allowHeaders.some((pattern) => originMatches(pattern.toLowerCase(), name)),
      ),
  );

/**
 * The CORS headers S3 puts on the answer to a request that is not a preflight, when a rule
 * admits its origin and method: what lets a browser read an upload form's answer.
 */
export function s3CorsHeaders(
  rules: readonly CorsRule[],
  method: string,
  headers: IncomingHttpHeaders,
): Record<string, string> {
  const origin = headers.origin;
  const rule = origin === undefined ? undefined : ruleFor(rules, origin, method);
  if (origin === undefined || rule === undefined) return {};
  const wildcard = rule.allowOrigins.includes('*');
  return {
    'access-control-allow-origin': wildcard ? '*' : origin,
    ...(wildcard ? {} : { 'access-control-allow-credentials': 'true' }),
    ...(rule.exposeHeaders.length === 0
      ? {}
      : { 'access-control-expose-headers': rule.exposeHeaders.join(', ') }),
    'access-control-max-age': String(rule.maxAgeSeconds),
    vary: S3_CORS_VARY,
  };
}
