import { AsyncLocalStorage } from 'node:async_hooks';
import type S3rver from 's3rver';
import { s3Error } from './s3rver-errors.ts';

/**
 * CopyObject's four conditions on its source, which s3rver ignores (it copies whatever is
 * there). S3 evaluates them as RFC 7232 section 6 orders them, which gives the outcomes
 * CopyObject's reference states: a matching `if-match` copies whatever `if-unmodified-since`
 * says, a failing `if-none-match` refuses whatever `if-modified-since` says. A failed one
 * answers 412 PreconditionFailed, naming the condition, and copies nothing.
 */

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** The source as it is inside the copy's turn: what the copy then copies. */
export interface CopySource {
  readonly etag: string;
  /** An HTTP date, to the second (as S3 keeps it). */
  readonly lastModified: string;
}

/** The headers of the copy request under way, for the store's copy to read. */
const copyRequest = new AsyncLocalStorage<Headers>();

const MESSAGE = 'At least one of the pre-conditions you specified did not hold';

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const unquoted = (etag: string) => etag.trim().replace(/^"(.*)"$/, '$1');

/** An HTTP date in milliseconds; RFC 7232 has a recipient ignore one it cannot read. */
const date = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : time;
};

/** The name S3 gives the condition that failed, or undefined when the copy may go ahead. */
function failedCopyCondition(headers: Headers, source: CopySource, now: Date): string | undefined {
  const etag = unquoted(source.etag);
  const modified = Date.parse(source.lastModified);
  const ifMatch = header(headers, 'x-amz-copy-source-if-match');
  if (ifMatch !== undefined) {
    if (unquoted(ifMatch) !== etag) return 'x-amz-copy-source-If-Match';
  } else {
    const since = date(header(headers, 'x-amz-copy-source-if-unmodified-since'));
    if (since !== undefined && modified > since) return 'x-amz-copy-source-If-Unmodified-Since';
  }
  const ifNoneMatch = header(headers, 'x-amz-copy-source-if-none-match');
  if (ifNoneMatch !== undefined) {
    if (unquoted(ifNoneMatch) === etag) return 'x-amz-copy-source-If-None-Match';
  } else {
    const since = date(header(headers, 'x-amz-copy-source-if-modified-since'));
    // A date still to come is no date (RFC 7232 3.3): S3 then copies.
    if (since !== undefined && since <= now.getTime() && modified <= since) {
      return 'x-amz-copy-source-If-Modified-Since';
    }
  }
  return undefined;
}

interface KoaContext {
  method: string;
  headers: Headers;
}

type Middleware = (context: KoaContext, next: () => Promise<void>) => Promise<void>;

const carryCopyHeaders: Middleware = (context, next) =>
  context.method === 'PUT' && 'x-amz-copy-source' in context.headers
    ? copyRequest.run(context.headers, next)
    : next();

/**
 * Installs the conditions (call before `run()`), and gives the check the store's copy makes
 * on its source inside the turn it copies in (see `makeObjectWritesAtomic`), so that no write
 * lands between the check and the copy.
 */
export function honourCopyConditions(server: S3rver): (source: CopySource) => void {
  const { middleware } = server;
  // Before the router, so the controller, and the store's copy under it, run inside.
  middleware.splice(middleware.length - 1, 0, carryCopyHeaders);
  return (source) => {
    const headers = copyRequest.getStore();
    if (headers === undefined) return;
    const failed = failedCopyCondition(headers, source, new Date());
    if (failed !== undefined) throw s3Error('PreconditionFailed', MESSAGE, { Condition: failed });
  };
}
