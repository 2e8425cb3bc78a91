import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tracer } from '../../observability/tracer.ts';

let client: DynamoDBClient | undefined;
let document: DynamoDBDocumentClient | undefined;

/**
 * One DynamoDB client per container, created on first use, on the SDK's regional endpoint,
 * each call traced in X-Ray.
 */
export function dynamoDbClient(): DynamoDBClient {
  client ??= tracer.captureAWSv3Client(new DynamoDBClient({}));
  return client;
}

/** How every document client marshals: attributes left undefined are simply not written. */
export const DOCUMENT_TRANSLATION = { marshallOptions: { removeUndefinedValues: true } } as const;

/** The document client over the same connection pool. */
export function documentClient(): DynamoDBDocumentClient {
  document ??= DynamoDBDocumentClient.from(dynamoDbClient(), DOCUMENT_TRANSLATION);
  return document;
}
