import { S3Client } from '@aws-sdk/client-s3';
import { optionalEnv } from '../../config.ts';
import { logger } from '../../logger.ts';

/**
 * S3 client options for an endpoint override (s3rver locally): path-style addressing, and
 * checksums only where S3 requires them, or s3rver stores the chunk framing in the object.
 */
export function s3ClientOptions(endpoint: string | undefined) {
  return endpoint === undefined
    ? {}
    : ({
        endpoint,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      } as const);
}

let client: S3Client | undefined;

const noop = () => undefined;

/** The SDK's own warnings, into the service's log. */
const sdkLogger = {
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

/** One S3 client per container; S3_ENDPOINT points it at s3rver on the local stage. */
export function s3Client(): S3Client {
  client ??= new S3Client({ ...s3ClientOptions(optionalEnv('S3_ENDPOINT')), logger: sdkLogger });
  return client;
}
