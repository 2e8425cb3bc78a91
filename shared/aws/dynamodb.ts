import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv } from '../config.ts';

let client: DynamoDBDocumentClient | undefined;

/**
 * One document client per container, created on first use at module scope. DYNAMODB_ENDPOINT
 * points it at DynamoDB Local; on Lambda it is unset and the SDK's regional endpoint applies.
 */
export function documentClient(): DynamoDBDocumentClient {
  client ??= DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: optionalEnv('DYNAMODB_ENDPOINT') }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  return client;
}
