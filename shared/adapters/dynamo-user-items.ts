import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
} from '@aws-sdk/lib-dynamodb';
import {
  IDEMPOTENT_OPERATIONS,
  idempotencyPartition,
  PARTITION_KEY,
  SORT_KEY,
  userPartition,
} from '../data/keys.ts';
import type { ItemKey, UserItems } from '../removal/user-items.ts';

/** BatchWriteItem takes at most 25 requests a call. */
const MAX_WRITES = 25;
const MAX_ATTEMPTS = 8;

const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/** A user's items: their own partition, and one idempotency partition per operation. */
export class DynamoUserItems implements UserItems {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async itemsOf(userId: number): Promise<readonly ItemKey[]> {
    const partitions = [
      userPartition(userId),
      ...Object.values(IDEMPOTENT_OPERATIONS).map((operation) =>
        idempotencyPartition(operation, userId),
      ),
    ];
    const found: ItemKey[] = [];
    for (const partition of partitions) {
      const pages = paginateQuery(
        { client: this.client },
        {
          TableName: this.tableName,
          ConsistentRead: true,
          KeyConditionExpression: '#pk = :pk',
          ProjectionExpression: '#pk, #sk',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
          ExpressionAttributeValues: { ':pk': partition },
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          found.push({ partition: String(item[PARTITION_KEY]), sort: String(item[SORT_KEY]) });
        }
      }
    }
    return found;
  }

  /**
   * Deletes in batches of 25. DynamoDB may leave some unprocessed when it throttles; those
   * are sent again, with backoff and jitter as AWS advises.
   */
  async deleteItems(items: readonly ItemKey[]): Promise<void> {
    for (let start = 0; start < items.length; start += MAX_WRITES) {
      let pending = items.slice(start, start + MAX_WRITES).map((item) => ({
        DeleteRequest: { Key: { [PARTITION_KEY]: item.partition, [SORT_KEY]: item.sort } },
      }));
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > MAX_ATTEMPTS) {
          throw new Error(`BatchWriteItem left ${pending.length} deletes unprocessed`);
        }
        if (attempt > 1) await pause(Math.random() * Math.min(1000, 25 * 2 ** attempt));
        const { UnprocessedItems } = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }),
        );
        pending = (UnprocessedItems?.[this.tableName] ?? []) as typeof pending;
      }
    }
  }
}
