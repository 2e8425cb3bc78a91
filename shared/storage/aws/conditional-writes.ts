import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AccountErased } from '../../domain/outcome.ts';
import { erasureMarkerKey, PARTITION_KEY } from '../keys.ts';
import { failedAt, transactWrite } from './transactions.ts';

type Key = Record<string, string>;

const PK_NAME = { '#pk': PARTITION_KEY } as const;

/** A transaction item that holds the transaction to the item's existence. */
export const conditionItemExists = (tableName: string, key: Key) => ({
  ConditionCheck: {
    TableName: tableName,
    Key: key,
    ConditionExpression: 'attribute_exists(#pk)',
    ExpressionAttributeNames: PK_NAME,
  },
});

/**
 * A transaction item that holds the transaction to the user not being erased: their erasure
 * marker is absent. An erasure writes the marker before it lists what to delete, so a write
 * that passes this check is one the erasure's listing sees.
 */
export const conditionNotErased = (tableName: string, userId: number) => ({
  ConditionCheck: {
    TableName: tableName,
    Key: erasureMarkerKey(userId),
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: PK_NAME,
  },
});

/**
 * Puts a new item of the user's (`putNewItem`), unless the user is erased: then AccountErased,
 * with nothing written. A taken key fails the transaction (`conditionsFailed`).
 */
export async function putNewUserItem(
  client: DynamoDBDocumentClient,
  tableName: string,
  userId: number,
  item: Record<string, unknown>,
): Promise<void> {
  try {
    await transactWrite(client, {
      TransactItems: [{ Put: putNewItem(tableName, item) }, conditionNotErased(tableName, userId)],
    });
  } catch (error) {
    if (failedAt(error, 1)) throw new AccountErased();
    throw error;
  }
}

/** A put that never overwrites: it fails when the key is taken. */
export const putNewItem = (tableName: string, item: Record<string, unknown>) => ({
  TableName: tableName,
  Item: item,
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: PK_NAME,
});

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException;
