import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';

/**
 * The variables that run a function's deployed Lambda entry, unchanged, on the stand-ins: its
 * table and bucket, and the SDK's own endpoint settings (an IP endpoint makes S3 path-style;
 * the local store wants checksums only where required).
 */
export function deployedEntryEnvironment(target: {
  readonly dynamodbEndpoint: string;
  readonly s3Endpoint: string;
  /** The object store's (DynamoDB Local takes them as any others). */
  readonly s3Credentials: Credentials;
  /** The table's and the bucket's name. */
  readonly name: string;
}): Record<string, string> {
  return {
    TABLE_NAME: target.name,
    TRAIL_TABLE_NAME: trailTableNameOf(target.name),
    BUCKET_NAME: target.name,
    AWS_ENDPOINT_URL_DYNAMODB: target.dynamodbEndpoint,
    AWS_ENDPOINT_URL_S3: target.s3Endpoint,
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: target.s3Credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: target.s3Credentials.secretAccessKey,
  };
}
