import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import type { UserItem, UserItemKind, UserItems } from '../user-items.ts';
import { batchWriteAll } from '../../storage/aws/batch-write.ts';
import { isConditionFailure, putNewItem } from '../../storage/aws/conditional-writes.ts';
import {
  DIRECT_UPLOAD_PREFIX,
  erasureMarkerKey,
  FILE_PREFIX,
  IDEMPOTENT_OPERATIONS,
  idempotencyPartition,
  NOTIFICATION_PREFIX,
  PARTITION_KEY,
  SORT_KEY,
  userPartition,
} from '../../storage/keys.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/** Tries at marking a user erased while their own writes hold the marker's item. */
const MARK_ATTEMPTS = 20;

/** What an item of the user's own partition is, by its sort key. */
function kindOf(sort: string): UserItemKind {
  if (sort.startsWith(FILE_PREFIX)) return 'file';
  if (sort.startsWith(DIRECT_UPLOAD_PREFIX)) return 'pending-upload';
  if (sort.startsWith(NOTIFICATION_PREFIX)) return 'notification';
  return 'other';
}

/** A user's items: their own partition, and one idempotency partition per operation. */
export class DynamoUserItems implements UserItems {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async itemsOf(userId: number): Promise<readonly UserItem[]> {
    const own = userPartition(userId);
    const marker = erasureMarkerKey(userId)[SORT_KEY];
    const partitions = [
      own,
      ...Object.values(IDEMPOTENT_OPERATIONS).map((operation) =>
        idempotencyPartition(operation, userId),
      ),
    ];
    const found: UserItem[] = [];
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
          const sort = String(item[SORT_KEY]);
          if (partition === own && sort === marker) continue;
          const kind = partition === own ? kindOf(sort) : 'idempotency-record';
          found.push({ kind, partition: String(item[PARTITION_KEY]), sort });
        }
      }
    }
    return found;
  }

  async markErased(userId: number, at: Date): Promise<void> {
    const put = new PutCommand(
      putNewItem(this.tableName, {
        ...erasureMarkerKey(userId),
        entity: 'ErasureMarker',
        erased_at: at.toISOString(),
      }),
    );
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(put);
        return;
      } catch (error) {
        // Marked by an earlier run: its time stands.
        if (isConditionFailure(error)) return;
        // The user's own writes check the marker in transactions, which a plain write meets
        // while they run (the SDK does not retry that): the erasure waits its turn.
        if (!(error instanceof TransactionConflictException) || attempt === MARK_ATTEMPTS) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }

  async isErased(userId: number): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: erasureMarkerKey(userId),
        ConsistentRead: true,
        ProjectionExpression: '#pk',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      }),
    );
    return Item !== undefined;
  }

  async deleteItems(items: readonly UserItem[]): Promise<void> {
    await batchWriteAll(
      this.client,
      this.tableName,
      items.map((item) => ({
        DeleteRequest: { Key: { [PARTITION_KEY]: item.partition, [SORT_KEY]: item.sort } },
      })),
    );
  }
}

/** Users' items as their erasure finds them, and their erasure markers. */
export const userItems = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoUserItems(documents(), TABLE_NAME);
