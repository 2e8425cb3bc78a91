import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { FILE_PREFIX, PARTITION_KEY, SORT_KEY, userPartition } from '../data/keys.ts';
import { FILE_TYPES, type FileType } from '../schemas/file-type.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/** How a UserFile is stored: the keys, then the record in the contract's own field names. */
export interface UserFileItem {
  readonly PK: string;
  readonly SK: string;
  readonly entity: 'UserFile';
  readonly id: number;
  readonly user_id: number;
  readonly name: string;
  readonly type: string | null;
  readonly created_at: string;
  readonly updated_at: string | null;
  readonly is_archived: boolean;
  readonly filesize: number;
  readonly location: string | null;
}

const isFileType = (value: unknown): value is FileType => FILE_TYPES.includes(value as FileType);

export const toUserFileItem = (file: UserFile): UserFileItem => ({
  PK: userPartition(file.userId),
  SK: `${FILE_PREFIX}${file.id}`,
  entity: 'UserFile',
  id: file.id,
  user_id: file.userId,
  name: file.name,
  type: file.type,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
  is_archived: file.isArchived,
  filesize: file.filesize,
  location: file.location,
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
}
