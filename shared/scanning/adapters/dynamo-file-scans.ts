import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
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

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
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

  async deleteRecord(file: FileRef): Promise<ScannedFileRecord | undefined> {
    if (file.kind === 'user-file') return this.deleteUserFile(file);
    const { Attributes } = await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: recordKey(file),
        ReturnValues: 'ALL_OLD',
      }),
    );
    return Attributes === undefined ? undefined : scannedRecord(Attributes);
  }

  /** A user's file leaves their usage in the same transaction that removes its record. */
  private async deleteUserFile(
    file: Extract<FileRef, { kind: 'user-file' }>,
  ): Promise<ScannedFileRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: recordKey(file), ConsistentRead: true }),
    );
    if (Item === undefined) return undefined;
    const record = scannedRecord(Item);
    // Not deleted here when its owner deleted it meanwhile: gone all the same, as asked.
    const deleted = await deleteCountedUserFile(this.client, this.tableName, {
      userId: file.userId,
      id: file.fileId,
      filesize: record.filesize,
    });
    return deleted ? record : undefined;
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

/** Files' malware-scan verdicts, on their records in the table. */
export const fileScans = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoFileScans(documents(), TABLE_NAME);
