import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';

/** Seeds a table 25 items a call, retrying whatever DynamoDB leaves unprocessed. */
export async function putItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly object[],
): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    let pending: BatchWriteCommandInput['RequestItems'] = {
      [tableName]: items
        .slice(i, i + 25)
        .map((item) => ({ PutRequest: { Item: item as Record<string, unknown> } })),
    };
    while (pending !== undefined && Object.keys(pending).length > 0) {
      const result: BatchWriteCommandOutput = await client.send(
        new BatchWriteCommand({ RequestItems: pending }),
      );
      pending = result.UnprocessedItems;
    }
  }
}
