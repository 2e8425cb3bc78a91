import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Environment } from '../config/environment.ts';

/**
 * What adapters are built on: SDK clients, each made when an adapter first asks for it, and
 * the resources' names, under the variables a deployed function reads them from. A caller
 * gives only what the builders it asks for need: a deployed entry spreads its environment
 * and adds its clients; the local stage, the operator CLI and the bench give their own.
 */
export interface AdapterSources extends Pick<
  Environment,
  | 'TABLE_NAME'
  | 'TRAIL_TABLE_NAME'
  | 'ACCESS_TRAIL_RETENTION_DAYS'
  | 'TRAIL_DIGEST_BUCKET_NAME'
  | 'BUCKET_NAME'
  | 'NOTIFY_QUEUE_URL'
  | 'NOTIFY_DLQ_URL'
  | 'REALTIME_KEYS_SECRET_ARN'
  | 'CHAT_WEBHOOK_SECRET_ARN'
  | 'CHAT_TIMEOUT_SECONDS'
> {
  readonly dynamodb: () => DynamoDBClient;
  /** A document client over `dynamodb`, marshalling as `DOCUMENT_TRANSLATION` says. */
  readonly documents: () => DynamoDBDocumentClient;
  readonly s3: () => S3Client;
  readonly sqs: () => SQSClient;
  readonly secretsManager: () => SecretsManagerClient;
}
