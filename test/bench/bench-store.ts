/**
 * A table (with its access trail) and a bucket of a bench's own on the bench's DynamoDB Local
 * and object store, and the clients a bench of the real adapters calls them with.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import {
  ensureBucket,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  s3ClientOptions,
} from '#infra/local/stage/stand-ins.ts';

export interface StandInEndpoints {
  readonly dynamodbEndpoint: string;
  readonly s3Endpoint: string;
  readonly s3Credentials: Credentials;
}

/** A new table and bucket, both named `<prefix>-<8 random hex>`, and clients of both. */
export async function benchStore(prefix: string, options: StandInEndpoints) {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await Promise.all([
    ensureTable(options.dynamodbEndpoint, name),
    ensureBucket(options.s3Endpoint, name, options.s3Credentials),
  ]);
  const dynamodb = new DynamoDBClient({
    endpoint: options.dynamodbEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const s3 = new S3Client({
    ...s3ClientOptions(options.s3Endpoint),
    region: LOCAL_REGION,
    credentials: options.s3Credentials,
  });
  return {
    name,
    dynamodb,
    documents: DynamoDBDocumentClient.from(dynamodb),
    s3,
    destroy: () => {
      dynamodb.destroy();
      s3.destroy();
    },
  };
}
