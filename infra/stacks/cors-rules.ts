import { API_ROUTES } from '#functions/service-functions.ts';
import { FILE_DIGEST_HEADER } from '#shared/http/file-digest-header.ts';
import { IDEMPOTENCY_HEADER } from '#shared/http/idempotency-key.ts';

/**
 * What a browser page on an allowed origin may do: the HTTP API's CORS configuration and the
 * bucket's CORS rule, as plain values. The stacks turn them into CDK's shapes (cors.ts); the
 * local stage's gateway and object store answer by them. Without origins there is no
 * configuration at all: API Gateway and S3 then answer no preflight and add no header.
 */
export interface CorsRule {
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly string[];
  /** Request headers a page may send beyond the CORS-safelisted ones (lower-case). */
  readonly allowHeaders: readonly string[];
  /** Response headers a page may read beyond the CORS-safelisted ones. */
  readonly exposeHeaders: readonly string[];
  /** How long a browser may keep a preflight's answer. */
  readonly maxAgeSeconds: number;
}

/** Chromium keeps a preflight's answer at most 2 hours; an hour is plenty and lets a change through. */
const PREFLIGHT_SECONDS = 3600;

/**
 * The HTTP API's: every method a route takes; the bearer token, the JSON and form bodies, and
 * the Idempotency-Key the upload and notify routes read; and the headers answers carry that
 * a page needs: the list's `Link` (next page), `Retry-After` (429, 503), notify's
 * `Location` and a file's `x-checksum-sha256`. No credentials: the API reads tokens, never cookies.
 */
export function apiCorsRule(allowedOrigins: readonly string[]): CorsRule | undefined {
  if (allowedOrigins.length === 0) return undefined;
  return {
    allowOrigins: [...allowedOrigins],
    allowMethods: [...new Set(API_ROUTES.map((route) => route.method))].sort(),
    allowHeaders: ['authorization', 'content-type', IDEMPOTENCY_HEADER],
    exposeHeaders: ['link', 'location', 'retry-after', FILE_DIGEST_HEADER],
    maxAgeSeconds: PREFLIGHT_SECONDS,
  };
}

/**
 * The bucket's: the signed form's POST from the allowed origins (a multipart form needs no
 * extra header), and the download link's GET and HEAD from any origin. A page reaches a link
 * through the API's 302, and the Fetch standard sends a request redirected across origins
 * with `Origin: null` (https://fetch.spec.whatwg.org/#http-redirect-fetch, the tainted
 * origin), which no named origin matches; the link is signed and short-lived, so whoever
 * holds it may read it from anywhere already. A page may read the object's `ETag`, and the
 * form's answer its `Location` too: uploaders such as Uppy's @uppy/aws-s3 ask a bucket to
 * expose both (docs/browsers.md). The signature, not the origin, admits a request: these only
 * let a page read the answer.
 */
export function bucketCorsRules(allowedOrigins: readonly string[]): readonly CorsRule[] {
  if (allowedOrigins.length === 0) return [];
  const rule = { allowHeaders: [], maxAgeSeconds: PREFLIGHT_SECONDS };
  return [
    {
      ...rule,
      allowOrigins: [...allowedOrigins],
      allowMethods: ['POST'],
      exposeHeaders: ['ETag', 'Location'],
    },
    { ...rule, allowOrigins: ['*'], allowMethods: ['GET', 'HEAD'], exposeHeaders: ['ETag'] },
  ];
}
