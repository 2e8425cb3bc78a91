import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AccessEntry } from '../../access-trail/access-entry.ts';
import {
  accessEntryPut,
  type TrailTable,
  trailFaultOf,
  trailTableOf,
} from '../../access-trail/adapters/access-entry-item.ts';
import { failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import type { FileScan } from '../../domain/file-scan.ts';
import type { FileScans, FileRef, ScannedFileRecord, TimedScan } from '../file-scans.ts';
import { deleteCountedUserFile } from '../../user-files/adapters/dynamo-user-file-repository.ts';
import { fromDealFileItem, fromUserFileItem } from '../../storage/file-items.ts';
import {
  dealFileSortKey,
  dealPartition,
  PARTITION_KEY,
  parseFileObjectKey,
  SORT_KEY,
  userFileSortKey,
  userPartition,
} from '../../storage/keys.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/** A file's record key, from the ids its object's key names. */
const recordKey = (file: FileRef) =>
  file.kind === 'user-file'
    ? { [PARTITION_KEY]: userPartition(file.userId), [SORT_KEY]: userFileSortKey(file.fileId) }
    : {
        [PARTITION_KEY]: dealPartition(file.groupId, file.dealId),
        [SORT_KEY]: dealFileSortKey(file.fileId),
      };

/** Scans live on the file records themselves (`scan`), so every read of a file has its scan. */
export class DynamoFileScans implements FileScans {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  /**
   * Where a delete's entry goes, in the delete's transaction: asked for only by a delete (the
   * operator's), so the verdict's function, which never deletes, needs no trail.
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
      throw new Error('File scans were built without the access trail: a delete needs it');
    }
    return trail;
  }

  fileOf(objectKey: string): FileRef | undefined {
    return parseFileObjectKey(objectKey);
  }

  async setScan(file: FileRef, scan: TimedScan): Promise<'recorded' | 'stale' | 'no-record'> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: recordKey(file),
          UpdateExpression: 'SET #scan = :scan',
          // ISO times of one format compare as text; a pending scan has no time, so any
          // verdict is newer than it.
          ConditionExpression:
            'attribute_exists(#pk) AND (attribute_not_exists(#scan.#at) OR #scan.#at < :at)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#scan': 'scan', '#at': 'at' },
          ExpressionAttributeValues: { ':scan': scan, ':at': scan.at },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'recorded';
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return error.Item === undefined ? 'no-record' : 'stale';
      }
      throw error;
    }
  }

  async get(file: FileRef): Promise<ScannedFileRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: recordKey(file), ConsistentRead: true }),
    );
    return Item === undefined ? undefined : scannedRecord(Item);
  }

  /**
   * A sweep of the whole table, filtered to files the scan has not cleared: an operator's
   * command, run rarely, where an index kept for it would cost every write.
   */
  async *unclearedFiles(): AsyncGenerator<readonly ScannedFileRecord[]> {
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        FilterExpression:
          '#entity IN (:user, :deal) AND (attribute_not_exists(#scan) OR #scan.#status = :pending OR (#scan.#status = :scanned AND #scan.#result <> :clean))',
        ExpressionAttributeNames: {
          '#entity': 'entity',
          '#scan': 'scan',
          '#status': 'status',
          '#result': 'result',
        },
        ExpressionAttributeValues: {
          ':user': 'UserFile',
          ':deal': 'DealFile',
          ':pending': 'pending',
          ':scanned': 'scanned',
          ':clean': 'NO_THREATS_FOUND',
        },
      },
    );
    for await (const page of pages) yield (page.Items ?? []).map(scannedRecord);
  }

  async markPending(file: FileRef): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: recordKey(file),
          UpdateExpression: 'SET #scan = :pending',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#scan': 'scan' },
          ExpressionAttributeValues: { ':pending': { status: 'pending' } },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async unmarkPending(file: FileRef, previous: FileScan | undefined): Promise<void> {
    const put =
      previous === undefined
        ? { UpdateExpression: 'REMOVE #scan', ExpressionAttributeValues: { ':pending': 'pending' } }
        : {
            UpdateExpression: 'SET #scan = :previous',
            ExpressionAttributeValues: { ':pending': 'pending', ':previous': previous },
          };
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: recordKey(file),
          ...put,
          ConditionExpression: '#scan.#status = :pending',
          ExpressionAttributeNames: { '#scan': 'scan', '#status': 'status' },
        }),
      );
    } catch (error) {
      // A verdict came meanwhile: it stands.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /**
   * The record is read, then removed in one transaction with the entry (a user's file leaves
   * their usage in it too). Not removed here when it went meanwhile (its owner's or an
   * editor's delete, with their own entry): gone all the same, as asked, and no entry.
   */
  async deleteRecord(file: FileRef, entry: AccessEntry): Promise<ScannedFileRecord | undefined> {
    const trail = this.trailTable();
    const record = await this.get(file);
    if (record === undefined) return undefined;
    const put = accessEntryPut(trail, entry);
    try {
      if (file.kind === 'user-file') {
        const deleted = await deleteCountedUserFile(
          this.client,
          this.tableName,
          { userId: file.userId, id: file.fileId, filesize: record.filesize },
          [put],
        );
        return deleted ? record : undefined;
      }
      await transactWrite(this.client, {
        TransactItems: [
          {
            Delete: {
              TableName: this.tableName,
              Key: recordKey(file),
              ConditionExpression: 'attribute_exists(#pk)',
              ExpressionAttributeNames: { '#pk': PARTITION_KEY },
            },
          },
          put,
        ],
      });
      return record;
    } catch (error) {
      if (file.kind === 'deal-file' && failedAt(error, 0)) return undefined;
      // The entry is the last item: the user file's delete and usage, or the deal file's.
      throw trailFaultOf(error, trail, file.kind === 'user-file' ? 2 : 1) ?? error;
    }
  }
}

/** A user's or a deal's file item, as the scan's operator sees it. */
function scannedRecord(item: Record<string, unknown>): ScannedFileRecord {
  if (item.entity === 'DealFile') {
    const deal = fromDealFileItem(item);
    return {
      file: { kind: 'deal-file', groupId: deal.groupId, dealId: deal.dealId, fileId: deal.id },
      name: deal.name,
      filesize: deal.filesize,
      createdAt: deal.createdAt,
      ...(deal.scan === undefined ? {} : { scan: deal.scan }),
    };
  }
  const user = fromUserFileItem(item);
  return {
    file: { kind: 'user-file', userId: user.userId, fileId: user.id },
    name: user.name,
    filesize: user.filesize,
    createdAt: user.createdAt,
    ...(user.scan === undefined ? {} : { scan: user.scan }),
  };
}

/**
 * Files' malware-scan verdicts, on their records in the table; a delete's entry in the access
 * trail, where the caller has it (the operator's commands): the verdict's function has none.
 */
export const fileScans = (
  sources: Pick<AdapterSources, 'documents' | 'TABLE_NAME'> &
    Partial<Pick<AdapterSources, 'TRAIL_TABLE_NAME' | 'ACCESS_TRAIL_RETENTION_DAYS'>>,
) =>
  new DynamoFileScans(sources.documents(), sources.TABLE_NAME, () => {
    const { TRAIL_TABLE_NAME, ACCESS_TRAIL_RETENTION_DAYS } = sources;
    return TRAIL_TABLE_NAME === undefined || ACCESS_TRAIL_RETENTION_DAYS === undefined
      ? undefined
      : trailTableOf({ TRAIL_TABLE_NAME, ACCESS_TRAIL_RETENTION_DAYS });
  });
