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
  error: (message: unknown) => {
    logger.error('AWS SDK error', { sdkMessage: String(message) });
  },
};

/** One S3 client per container, created on first use, on the SDK's regional endpoint, traced. */
export function s3Client(): S3Client {
  client ??= tracer.captureAWSv3Client(new S3Client({ logger: sdkLogger }));
  return client;
}
