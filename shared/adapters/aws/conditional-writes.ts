import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PARTITION_KEY } from '../keys.ts';

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

/** A put that never overwrites: it fails when the key is taken. */
export const putNewItem = (tableName: string, item: Record<string, unknown>) => ({
  TableName: tableName,
  Item: item,
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: PK_NAME,
});

/** A delete that reports what it removed, and fails when there was nothing. */
export const deleteExistingItem = (tableName: string, key: Key) => ({
  TableName: tableName,
  Key: key,
  ConditionExpression: 'attribute_exists(#pk)',
  ExpressionAttributeNames: PK_NAME,
  ReturnValues: 'ALL_OLD' as const,
});

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException;
