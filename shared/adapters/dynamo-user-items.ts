import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import {
  IDEMPOTENT_OPERATIONS,
  idempotencyPartition,
  PARTITION_KEY,
  SORT_KEY,
  userPartition,
} from '../data/keys.ts';
import type { ItemKey, UserItems } from '../removal/user-items.ts';
import { batchWriteAll } from './aws/batch-write.ts';

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

  async deleteItems(items: readonly ItemKey[]): Promise<void> {
    await batchWriteAll(
      this.client,
      this.tableName,
      items.map((item) => ({
        DeleteRequest: { Key: { [PARTITION_KEY]: item.partition, [SORT_KEY]: item.sort } },
      })),
    );
  }
}
