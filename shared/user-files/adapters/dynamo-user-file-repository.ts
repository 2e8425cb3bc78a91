import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '../../storage/aws/batch-get.ts';
import { conditionNotErased, putNewItem } from '../../storage/aws/conditional-writes.ts';
import { failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import type { AccessEntry } from '../../access-trail/access-entry.ts';
import {
  accessEntryPut,
  type TrailTable,
  trailFaultOf,
  trailTableOf,
} from '../../access-trail/adapters/access-entry-item.ts';
import {
  adding,
  removing,
  transactCounted,
  usageUpdate,
} from '../../usage/adapters/dynamo-usage-ledger.ts';
import { oneFile, type StorageLimits } from '../../usage/usage.ts';
import { filesNewestFirst } from '../../storage/aws/files-newest-first.ts';
import { PARTITION_KEY, SORT_KEY, userFileSortKey, userPartition } from '../../storage/keys.ts';
import { type ListOptions, type Page, positionOf } from '../../domain/page.ts';
import type { UserFile } from '../user-file.ts';
import { fromUserFileItem, toUserFileItem } from '../../storage/file-items.ts';
import type { UserFileChange, UserFileRepository } from '../user-file-repository.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

export class DynamoUserFileRepository implements UserFileRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  /**
   * Where a change's entries go, in its transaction, asked for only then: most functions
   * (and the operator's commands on a stage deployed before the trail) never change a file.
   */
  private readonly trail: () => TrailTable | undefined;

  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    trail: () => TrailTable | undefined = () => undefined,
  ) {
    this.client = client;
    this.tableName = tableName;
    this.trail = trail;
  }

  private trailTable(): TrailTable {
    const trail = this.trail();
    if (trail === undefined) {
      throw new Error('User files were built without the access trail: a change needs it');
    }
    return trail;
  }

  async listByOwner(userId: number, options: ListOptions = {}): Promise<Page<UserFile>> {
    const { items, more } = await filesNewestFirst(
      this.client,
      this.tableName,
      userPartition(userId),
      userFileSortKey,
      options,
    );
    const files = items.map(fromUserFileItem);
    const last = files.at(-1);
    return more && last !== undefined ? { items: files, next: positionOf(last) } : { items: files };
  }

  async get(userId: number, fileId: number): Promise<UserFile | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [PARTITION_KEY]: userPartition(userId), [SORT_KEY]: userFileSortKey(fileId) },
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : fromUserFileItem(Item);
  }

  async getMany(userId: number, fileIds: readonly number[]): Promise<UserFile[]> {
    const keys = fileIds.map((fileId) => ({
      [PARTITION_KEY]: userPartition(userId),
      [SORT_KEY]: userFileSortKey(fileId),
    }));
    return (await batchGetAll(this.client, this.tableName, keys)).map(fromUserFileItem);
  }

  async create(file: UserFile, limits?: StorageLimits): Promise<void> {
    await transactCounted(this.client, this.tableName, {
      userId: file.userId,
      items: [
        { Put: putNewItem(this.tableName, toUserFileItem(file)) },
        usageUpdate(this.tableName, file.userId, adding(oneFile(file.filesize)), limits),
        conditionNotErased(this.tableName, file.userId),
      ],
      usageIndex: 1,
      erasedIndex: 2,
      ...(limits === undefined ? {} : { limits, asked: oneFile(file.filesize) }),
    });
  }

  async update(
    userId: number,
    fileId: number,
    change: UserFileChange,
    entries: readonly AccessEntry[],
  ): Promise<boolean> {
    // Attribute names are the item schema's (`toUserFileItem`).
    const sets = {
      updated_at: change.updatedAt,
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.isArchived === undefined ? {} : { is_archived: change.isArchived }),
    };
    const names = Object.keys(sets);
    const trail = this.trailTable();
    try {
      await transactWrite(this.client, {
        TransactItems: [
          {
            Update: {
              TableName: this.tableName,
              Key: this.keyOf(userId, fileId),
              UpdateExpression: `SET ${names.map((_, i) => `#f${String(i)} = :v${String(i)}`).join(', ')}`,
              ConditionExpression: 'attribute_exists(#pk)',
              ExpressionAttributeNames: {
                '#pk': PARTITION_KEY,
                ...Object.fromEntries(names.map((name, i) => [`#f${String(i)}`, name])),
              },
              ExpressionAttributeValues: Object.fromEntries(
                Object.values(sets).map((value, i) => [`:v${String(i)}`, value]),
              ),
            },
          },
          ...entries.map((entry) => accessEntryPut(trail, entry)),
        ],
      });
      return true;
    } catch (error) {
      if (failedAt(error, 0)) return false;
      throw trailFaultOf(error, trail, 1) ?? error;
    }
  }

  async delete(file: UserFile, entry: AccessEntry): Promise<boolean> {
    const trail = this.trailTable();
    try {
      return await deleteCountedUserFile(this.client, this.tableName, file, [
        accessEntryPut(trail, entry),
      ]);
    } catch (error) {
      throw trailFaultOf(error, trail, 2) ?? error;
    }
  }

  private keyOf(userId: number, fileId: number) {
    return { [PARTITION_KEY]: userPartition(userId), [SORT_KEY]: userFileSortKey(fileId) };
  }
}

/**
 * Removes a user's file record and takes it out of their usage, in one transaction: false
 * when there was no record (another delete took it).
 */
export async function deleteCountedUserFile(
  client: DynamoDBDocumentClient,
  tableName: string,
  file: Pick<UserFile, 'userId' | 'id' | 'filesize'>,
  /** Written with the delete, after its two items: the owner's delete's trail entry. */
  alongside: readonly NonNullable<TransactWriteCommandInput['TransactItems']>[number][] = [],
): Promise<boolean> {
  try {
    await transactCounted(client, tableName, {
      userId: file.userId,
      items: [
        {
          Delete: {
            TableName: tableName,
            Key: {
              [PARTITION_KEY]: userPartition(file.userId),
              [SORT_KEY]: userFileSortKey(file.id),
            },
            ConditionExpression: 'attribute_exists(#pk)',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          },
        },
        usageUpdate(tableName, file.userId, removing(oneFile(file.filesize))),
        ...alongside,
      ],
      usageIndex: 1,
    });
    return true;
  } catch (error) {
    if (failedAt(error, 0)) return false;
    throw error;
  }
}

/**
 * Users' files: their records in the table; a change's entries in the access trail, where
 * the function has it (declared `trail`): the many functions that only read or add files
 * build them without it, and a change there would throw.
 */
export const userFiles = (
  sources: Pick<AdapterSources, 'documents' | 'TABLE_NAME'> &
    Partial<Pick<AdapterSources, 'TRAIL_TABLE_NAME' | 'ACCESS_TRAIL_RETENTION_DAYS'>>,
) =>
  new DynamoUserFileRepository(sources.documents(), sources.TABLE_NAME, () => {
    const { TRAIL_TABLE_NAME, ACCESS_TRAIL_RETENTION_DAYS } = sources;
    return TRAIL_TABLE_NAME === undefined || ACCESS_TRAIL_RETENTION_DAYS === undefined
      ? undefined
      : trailTableOf({ TRAIL_TABLE_NAME, ACCESS_TRAIL_RETENTION_DAYS });
  });
