import httpContentEncoding from '@middy/http-content-encoding';
import type { MiddlewareObj } from '@middy/core';
import { acceptsGzip } from '../docs/content-negotiation.ts';
import type { ApiEvent } from './api-event.ts';
import type { ApiResult } from './responses.ts';

/**
 * Tells middy's encoder whether the client takes gzip, with the negotiation the docs assets
 * already use (middy's own negotiator would cost every list function about 4 ms of cold start
 * for the one question).
 */
const gzipWhenAccepted = (): MiddlewareObj<ApiEvent, ApiResult> => ({
  before: ({ event, context }) => {
    if (acceptsGzip(event.headers['accept-encoding'])) {
      Object.assign(context, { preferredEncoding: 'gzip', preferredEncodings: ['gzip'] });
    }
  },
});

/**
 * A list's answer grows with the caller's data: gzip it when the client accepts gzip (API
 * Gateway passes a base64 body and its Content-Encoding through; Lambda's limit applies to
 * what the function returns, so about seven times as many files fit). Only gzip is offered:
 * every HTTP client decodes it, and brotli's default level costs seconds on megabytes.
 */
export const compressWhenAccepted = (): [
  MiddlewareObj<ApiEvent, ApiResult>,
  MiddlewareObj<unknown, unknown>,
] => [gzipWhenAccepted(), httpContentEncoding({ gzip: {} })];
