import { S3Client } from '@aws-sdk/client-s3';
import { logger } from '../../logger.ts';
import { tracer } from '../../observability/tracer.ts';

let client: S3Client | undefined;

const noop = () => undefined;

/** The SDK's own warnings, into the service's log. */
export const sdkLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: (message: unknown) => {
    logger.warn('AWS SDK warning', { sdkMessage: String(message) });
  },
  // The SDK reports every failed call here. A missing object or a copy whose source changed
  // is an answer the adapter expects (a HeadObject's 404 on every completed direct upload),
  // not an error; anything else is one.
  error: (entry: unknown) => {
    const call = failedCall(entry);
    if (EXPECTED_FAILURES.has(call.error ?? '')) logger.debug('AWS SDK call failed', call);
    else logger.error('AWS SDK error', call);
  },
};

const EXPECTED_FAILURES = new Set(['NotFound', 'NoSuchKey', 'PreconditionFailed']);

/** What the SDK's log entry of a failed call says: the command and the error's name. */
function failedCall(entry: unknown): { readonly [field: string]: string | undefined } {
  if (typeof entry !== 'object' || entry === null) return { sdkMessage: String(entry) };
  const { commandName, error } = entry as { commandName?: unknown; error?: unknown };
  return {
    commandName: String(commandName),
    error: error instanceof Error ? error.name : String(error),
  };
}

/** One S3 client per container, created on first use, on the SDK's regional endpoint, traced. */
export function s3Client(): S3Client {
  client ??= tracer.captureAWSv3Client(new S3Client({ logger: sdkLogger }));
  return client;
}
