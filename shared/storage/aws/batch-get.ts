import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PARTITION_KEY, SORT_KEY } from '../keys.ts';
import { sendUntilProcessed } from './until-processed.ts';

type Key = Record<string, string>;

/** BatchGetItem takes at most 100 keys a call. */
const MAX_KEYS = 100;

/**
 * Reads many items of one table, strongly consistent, in as few calls as BatchGetItem allows.
 * DynamoDB may leave keys unprocessed when it throttles; those are asked for again
 * (`sendUntilProcessed`) until every key has an answer.
 */
export async function batchGetAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  /** Attribute names to read (beside the keys, which come anyway); all when absent. */
  attributes?: readonly string[],
): Promise<Record<string, unknown>[]> {
  const projection =
    attributes === undefined
      ? {}
      : {
          ProjectionExpression: ['#pk', '#sk', ...attributes.map((_, i) => `#a${i}`)].join(', '),
          ExpressionAttributeNames: {
            '#pk': PARTITION_KEY,
            '#sk': SORT_KEY,
            ...Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
          },
        };
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += MAX_KEYS) {
    await sendUntilProcessed(
      'BatchGetItem',
      keys.slice(start, start + MAX_KEYS),
      async (pending) => {
        const result = await client.send(
          new BatchGetCommand({
            RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true, ...projection } },
          }),
        );
        found.push(...(result.Responses?.[tableName] ?? []));
        return (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
      },
    );
  }
  return found;
}

const keyString = (key: Record<string, unknown>) =>
  `${String(key[PARTITION_KEY])}\u0000${String(key[SORT_KEY])}`;

/** Items read by `batchGetAll`, found again by their keys (a batch answers in no order). */
export function itemsByKey(
  items: readonly Record<string, unknown>[],
): (key: Key) => Record<string, unknown> | undefined {
  const byKey = new Map(items.map((item) => [keyString(item), item]));
  return (key) => byKey.get(keyString(key));
}
