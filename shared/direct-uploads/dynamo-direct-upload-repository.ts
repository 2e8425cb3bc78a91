import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  directUploadSortKey,
  EXPIRY_ATTRIBUTE,
  PARTITION_KEY,
  SORT_KEY,
  userPartition,
} from '../data/keys.ts';
import { toUserFileItem } from '../user-files/dynamo-user-file-repository.ts';
import type { UserFile } from '../user-files/user-file.ts';
import type { DirectUpload, DirectUploadRejection } from './direct-upload.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

/** How long a pending upload's record outlives its signed form, for late completion. */
const KEEP_AFTER_EXPIRY_SECONDS = 24 * 60 * 60;

const keyOf = (userId: number, fileId: number) => ({
  [PARTITION_KEY]: userPartition(userId),
  [SORT_KEY]: directUploadSortKey(fileId),
});

export const toDirectUploadItem = (upload: DirectUpload) => ({
  ...keyOf(upload.userId, upload.id),
  entity: 'DirectUpload',
  id: upload.id,
  user_id: upload.userId,
  name: upload.name,
  type: upload.type,
  content_type: upload.contentType,
  declared_size: upload.declaredSize,
  created_at: upload.createdAt,
  expires_at: upload.expiresAt,
  status: upload.status,
  ...(upload.rejection === undefined ? {} : { rejection: upload.rejection }),
  [EXPIRY_ATTRIBUTE]: Math.ceil(Date.parse(upload.expiresAt) / 1000) + KEEP_AFTER_EXPIRY_SECONDS,
});

const fromDirectUploadItem = (item: Record<string, unknown>): DirectUpload => {
  const upload = {
    id: Number(item.id),
    userId: Number(item.user_id),
    name: String(item.name),
    type: item.type as DirectUpload['type'],
    contentType: String(item.content_type),
    declaredSize: Number(item.declared_size),
    createdAt: String(item.created_at),
    expiresAt: String(item.expires_at),
    status: item.status === 'rejected' ? 'rejected' : 'pending',
  } as const;
  return item.rejection === 'too_large' || item.rejection === 'empty'
    ? { ...upload, rejection: item.rejection }
    : upload;
};

export class DynamoDirectUploadRepository implements DirectUploadRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async start(upload: DirectUpload): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toDirectUploadItem(upload),
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      }),
    );
  }

  async find(userId: number, fileId: number): Promise<DirectUpload | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keyOf(userId, fileId),
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : fromDirectUploadItem(Item);
  }

  async reject(userId: number, fileId: number, reason: DirectUploadRejection): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(userId, fileId),
          UpdateExpression: 'SET #status = :rejected, #rejection = :reason',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status', '#rejection': 'rejection' },
          ExpressionAttributeValues: {
            ':rejected': 'rejected',
            ':reason': reason,
            ':pending': 'pending',
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async complete(file: UserFile): Promise<'completed' | 'conflict'> {
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: toUserFileItem(file),
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY },
              },
            },
            {
              Delete: {
                TableName: this.tableName,
                Key: keyOf(file.userId, file.id),
                ConditionExpression: '#status = :pending',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':pending': 'pending' },
              },
            },
          ],
        }),
      );
      return 'completed';
    } catch (error) {
      const reasons =
        error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return 'conflict';
      throw error;
    }
  }
}
