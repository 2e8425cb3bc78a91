import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { batchGetAll, itemsByKey } from '../../storage/aws/batch-get.ts';
import { conditionItemExists, putNewItem } from '../../storage/aws/conditional-writes.ts';
import { conditionsFailed, failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import { filesNewestFirst } from '../../storage/aws/files-newest-first.ts';
import { dealFileSortKey, dealPartition, PARTITION_KEY, SORT_KEY } from '../../storage/keys.ts';
import { type ListOptions, type Page, positionOf } from '../../domain/page.ts';
import { dealKey, memberKey, roleOf } from '../../groups/adapters/dynamo-group-repository.ts';
import type { DealRef } from '../../groups/group.ts';
import type { FileType } from '../../domain/file-type.ts';
import { fromDealFileItem, toDealFileItem } from '../../storage/file-items.ts';
import type { DealFile } from '../deal-file.ts';
import type { DealFileAccess, DealFileRepository } from '../deal-file-repository.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import type { AccessEntry } from '../../access-trail/access-entry.ts';
import {
  accessEntryPut,
  type TrailTable,
  trailFaultOf,
  trailTableOf,
} from '../../access-trail/adapters/access-entry-item.ts';

const NAMES = { '#pk': PARTITION_KEY } as const;

export const dealFileKey = (deal: DealRef, fileId: number) => ({
  [PARTITION_KEY]: dealPartition(deal.groupId, deal.dealId),
  [SORT_KEY]: dealFileSortKey(fileId),
});

export class DynamoDealFileRepository implements DealFileRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  /** Where a change's entry goes, in the change's transaction; absent for a reader. */
  private readonly trail: TrailTable | undefined;

  constructor(client: DynamoDBDocumentClient, tableName: string, trail?: TrailTable) {
    this.client = client;
    this.tableName = tableName;
    this.trail = trail;
  }

  private trailTable(): TrailTable {
    if (this.trail === undefined) {
      throw new Error('Deal files were built without the access trail: a change needs it');
    }
    return this.trail;
  }

  /** A change's failure that is its entry's: TrailUnavailable, else the error as it is. */
  private failureOf(error: unknown, entryIndex: number): unknown {
    return (this.trail && trailFaultOf(error, this.trail, entryIndex)) ?? error;
  }

  async access(userId: number, deal: DealRef, fileId?: number): Promise<DealFileAccess> {
    const member = memberKey(deal.groupId, userId);
    const dealItem = dealKey(deal.groupId, deal.dealId);
    const file = fileId === undefined ? undefined : dealFileKey(deal, fileId);
    const find = itemsByKey(
      await batchGetAll(
        this.client,
        this.tableName,
        file === undefined ? [member, dealItem] : [member, dealItem, file],
      ),
    );
    const fileItem = file === undefined ? undefined : find(file);
    return {
      role: find(dealItem) === undefined ? undefined : roleOf(find(member)),
      file: fileItem === undefined ? undefined : fromDealFileItem(fileItem),
    };
  }

  async listByDeal(deal: DealRef, options: ListOptions = {}): Promise<Page<DealFile>> {
    const { items, more } = await filesNewestFirst(
      this.client,
      this.tableName,
      dealPartition(deal.groupId, deal.dealId),
      dealFileSortKey,
      options,
    );
    const files = items.map(fromDealFileItem);
    const last = files.at(-1);
    return more && last !== undefined ? { items: files, next: positionOf(last) } : { items: files };
  }

  async get(deal: DealRef, fileId: number): Promise<DealFile | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: dealFileKey(deal, fileId),
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : fromDealFileItem(Item);
  }

  async updateType(
    editorId: number,
    deal: DealRef,
    fileId: number,
    change: { readonly type: FileType | null; readonly updatedAt: string },
    entry: AccessEntry,
  ): Promise<boolean> {
    return this.asEditor(editorId, deal, entry, {
      Update: {
        TableName: this.tableName,
        Key: dealFileKey(deal, fileId),
        UpdateExpression: 'SET #type = :type, #updated = :updated',
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: { ...NAMES, '#type': 'type', '#updated': 'updated_at' },
        ExpressionAttributeValues: { ':type': change.type, ':updated': change.updatedAt },
      },
    });
  }

  async delete(
    editorId: number,
    deal: DealRef,
    fileId: number,
    entry: AccessEntry,
  ): Promise<boolean> {
    return this.asEditor(editorId, deal, entry, {
      Delete: {
        TableName: this.tableName,
        Key: dealFileKey(deal, fileId),
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: NAMES,
      },
    });
  }

  async create(file: DealFile, entry?: AccessEntry): Promise<'created' | 'deal-missing'> {
    try {
      await transactWrite(this.client, {
        TransactItems: [
          conditionItemExists(this.tableName, dealKey(file.groupId, file.dealId)),
          { Put: putNewItem(this.tableName, toDealFileItem(file)) },
          ...(entry === undefined ? [] : [accessEntryPut(this.trailTable(), entry)]),
        ],
      });
      return 'created';
    } catch (error) {
      if (failedAt(error, 0)) return 'deal-missing';
      throw entry === undefined ? error : this.failureOf(error, 2);
    }
  }

  /**
   * One write, in a transaction that holds only while the caller is still an editor of the
   * group and the deal is still in it: a role taken away a moment after the read still stops
   * the write. Its entry lands with it. False when any condition failed.
   */
  private async asEditor(
    editorId: number,
    deal: DealRef,
    entry: AccessEntry,
    write: NonNullable<TransactWriteCommandInput['TransactItems']>[number],
  ): Promise<boolean> {
    try {
      await transactWrite(this.client, {
        TransactItems: [
          {
            ConditionCheck: {
              TableName: this.tableName,
              Key: memberKey(deal.groupId, editorId),
              ConditionExpression: '#role = :editor',
              ExpressionAttributeNames: { '#role': 'role' },
              ExpressionAttributeValues: { ':editor': 'editor' },
            },
          },
          conditionItemExists(this.tableName, dealKey(deal.groupId, deal.dealId)),
          write,
          accessEntryPut(this.trailTable(), entry),
        ],
      });
      return true;
    } catch (error) {
      if (conditionsFailed(error)) return false;
      throw this.failureOf(error, 3);
    }
  }
}

/** Deals' files, and the caller's access to them, in the table; each change's entry in the trail. */
export const dealFiles = (
  sources: Pick<
    AdapterSources,
    'documents' | 'TABLE_NAME' | 'TRAIL_TABLE_NAME' | 'ACCESS_TRAIL_RETENTION_DAYS'
  >,
) => new DynamoDealFileRepository(sources.documents(), sources.TABLE_NAME, trailTableOf(sources));

/** Deals' files for a function that only reads them: no trail, so a change would throw. */
export const dealFileReads = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoDealFileRepository(documents(), TABLE_NAME);
