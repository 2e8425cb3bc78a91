import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendUntilProcessed } from './until-processed.ts';

/** One request of a BatchWriteItem: an item to put, or the key of one to delete. */
export type WriteRequest =
  | { readonly PutRequest: { readonly Item: Record<string, unknown> } }
  | { readonly DeleteRequest: { readonly Key: Record<string, unknown> } };

/** BatchWriteItem takes at most 25 requests a call. */
const MAX_WRITES = 25;

/**
 * Writes many items of one table in as few calls as BatchWriteItem allows, sending again
 * whatever DynamoDB leaves unprocessed (`sendUntilProcessed`). Each request is applied on its
 * own, not as a transaction: a failure part-way leaves the batches before it written.
 */
export async function batchWriteAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: readonly WriteRequest[],
): Promise<void> {
  for (let start = 0; start < requests.length; start += MAX_WRITES) {
    await sendUntilProcessed(
      'BatchWriteItem',
      requests.slice(start, start + MAX_WRITES),
      async (pending) => {
        const { UnprocessedItems } = await client.send(
          new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
        );
        return (UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
      },
    );
  }
}
