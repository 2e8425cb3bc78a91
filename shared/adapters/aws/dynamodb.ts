import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv } from '../../config.ts';

let client: DynamoDBClient | undefined;
let document: DynamoDBDocumentClient | undefined;

/**
 * One DynamoDB client per container, created on first use. DYNAMODB_ENDPOINT points it at
 * DynamoDB Local; on Lambda it is unset and the SDK's regional endpoint applies.
 */
export function dynamoDbClient(): DynamoDBClient {
  client ??= new DynamoDBClient({ endpoint: optionalEnv('DYNAMODB_ENDPOINT') });
  return client;
}

/** The document client over the same connection pool. */
export function documentClient(): DynamoDBDocumentClient {
  document ??= DynamoDBDocumentClient.from(dynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return document;
}
