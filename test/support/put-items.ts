import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '#shared/storage/aws/batch-write.ts';

/** Seeds a table 25 items a call, retrying whatever DynamoDB leaves unprocessed. */
export async function putItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly object[],
): Promise<void> {
  await batchWriteAll(
    client,
    tableName,
    items.map((item) => ({ PutRequest: { Item: item as Record<string, unknown> } })),
  );
}
