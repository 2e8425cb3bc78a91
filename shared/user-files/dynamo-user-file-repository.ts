import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  FILE_PREFIX,
  PARTITION_KEY,
  SORT_KEY,
  userFileSortKey,
  userPartition,
} from '../data/keys.ts';
import { FILE_TYPES, type FileType } from '../schemas/file-type.ts';
import type { UserFileBody } from '../schemas/user-file.ts';
import type { UserFile } from './user-file.ts';
import { toUserFileBody } from './user-file-response.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/** How a UserFile is stored: the keys, then the record in the contract's own field names. */
export type UserFileItem = {
  readonly PK: string;
  readonly SK: string;
  readonly entity: 'UserFile';
} & UserFileBody;

const isFileType = (value: unknown): value is FileType => FILE_TYPES.includes(value as FileType);

export const toUserFileItem = (file: UserFile): UserFileItem => ({
  PK: userPartition(file.userId),
  SK: userFileSortKey(file.id),
  entity: 'UserFile',
  ...toUserFileBody(file),
});

export const fromUserFileItem = (item: Record<string, unknown>): UserFile => ({
  id: Number(item.id),
  userId: Number(item.user_id),
  name: String(item.name),
  type: isFileType(item.type) ? item.type : null,
  createdAt: String(item.created_at),
  updatedAt: typeof item.updated_at === 'string' ? item.updated_at : null,
  isArchived: item.is_archived === true,
  filesize: typeof item.filesize === 'number' ? item.filesize : 0,
  location: typeof item.location === 'string' ? item.location : null,
});

export class DynamoUserFileRepository implements UserFileRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async listByOwner(userId: number): Promise<UserFile[]> {
    const files: UserFile[] = [];
    // Queries return at most 1 MB a page; the paginator follows LastEvaluatedKey to the end.
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :file)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
        ExpressionAttributeValues: { ':pk': userPartition(userId), ':file': FILE_PREFIX },
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) files.push(fromUserFileItem(item));
    }
    return files;
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

  async create(file: UserFile): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toUserFileItem(file),
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      }),
    );
  }
}
