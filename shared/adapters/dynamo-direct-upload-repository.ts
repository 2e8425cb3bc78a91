import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  ConditionalCheckFailedException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { conditionNotErased, putNewUserItem } from './aws/conditional-writes.ts';
import { conditionsFailed, failedAt, transactWrite } from './aws/transactions.ts';
import {
  directUploadSortKey,
  EXPIRY_ATTRIBUTE,
  PARTITION_KEY,
  SORT_KEY,
  userPartition,
} from './keys.ts';
import { fromDirectUploadItem } from './items/direct-upload-item.ts';
import { toUserFileItem } from './items/file-items.ts';
import type { UserFile } from '../user-files/user-file.ts';
import type {
  CompletionClaim,
  DirectUpload,
  DirectUploadRejection,
} from '../direct-uploads/direct-upload.ts';
import type { DirectUploadRepository } from '../direct-uploads/direct-upload-repository.ts';

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
  ...(upload.claim === undefined
    ? {}
    : { claim_token: upload.claim.token, claim_until: upload.claim.until }),
  [EXPIRY_ATTRIBUTE]: Math.ceil(Date.parse(upload.expiresAt) / 1000) + KEEP_AFTER_EXPIRY_SECONDS,
});

/**
 * Whether a conditional write did not happen because of the item's state: its condition
 * failed, or a transaction (a completion) was writing the item at that moment.
 */
const conditionFailed = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException || error instanceof TransactionConflictException;

export class DynamoDirectUploadRepository implements DirectUploadRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async start(upload: DirectUpload): Promise<void> {
    await putNewUserItem(this.client, this.tableName, upload.userId, toDirectUploadItem(upload));
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

  async claim(userId: number, fileId: number, claim: CompletionClaim, now: Date): Promise<boolean> {
    return this.update(userId, fileId, {
      UpdateExpression: 'SET #status = :completing, #token = :token, #until = :until',
      ConditionExpression: '#status = :pending OR (#status = :completing AND #until < :now)',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#token': 'claim_token',
        '#until': 'claim_until',
      },
      ExpressionAttributeValues: {
        ':completing': 'completing',
        ':pending': 'pending',
        ':token': claim.token,
        ':until': claim.until,
        ':now': now.toISOString(),
      },
    });
  }

  async release(userId: number, fileId: number, token: string): Promise<boolean> {
    return this.update(userId, fileId, {
      UpdateExpression: 'SET #status = :pending REMOVE #token, #until',
      ConditionExpression: '#status = :completing AND #token = :token',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#token': 'claim_token',
        '#until': 'claim_until',
      },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':completing': 'completing',
        ':token': token,
      },
    });
  }

  async reject(
    userId: number,
    fileId: number,
    reason: DirectUploadRejection,
    token: string,
  ): Promise<boolean> {
    return this.update(userId, fileId, {
      UpdateExpression: 'SET #status = :rejected, #rejection = :reason REMOVE #token, #until',
      ConditionExpression: '#status = :completing AND #token = :token',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#rejection': 'rejection',
        '#token': 'claim_token',
        '#until': 'claim_until',
      },
      ExpressionAttributeValues: {
        ':rejected': 'rejected',
        ':reason': reason,
        ':completing': 'completing',
        ':token': token,
      },
    });
  }

  async cancel(userId: number, fileId: number, now: Date): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keyOf(userId, fileId),
          ConditionExpression:
            'attribute_exists(#pk) AND (#status <> :completing OR #until < :now)',
          ExpressionAttributeNames: {
            '#pk': PARTITION_KEY,
            '#status': 'status',
            '#until': 'claim_until',
          },
          ExpressionAttributeValues: { ':completing': 'completing', ':now': now.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  /** A conditional update of the upload's item: false when its condition failed. */
  private async update(
    userId: number,
    fileId: number,
    expression: Pick<
      UpdateCommandInput,
      | 'UpdateExpression'
      | 'ConditionExpression'
      | 'ExpressionAttributeNames'
      | 'ExpressionAttributeValues'
    >,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({ TableName: this.tableName, Key: keyOf(userId, fileId), ...expression }),
      );
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  async complete(file: UserFile, token: string): Promise<'completed' | 'conflict' | 'erased'> {
    try {
      await transactWrite(this.client, {
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
              ConditionExpression: '#status = :completing AND #token = :token',
              ExpressionAttributeNames: { '#status': 'status', '#token': 'claim_token' },
              ExpressionAttributeValues: { ':completing': 'completing', ':token': token },
            },
          },
          conditionNotErased(this.tableName, file.userId),
        ],
      });
      return 'completed';
    } catch (error) {
      if (failedAt(error, 2)) return 'erased';
      if (conditionsFailed(error)) return 'conflict';
      throw error;
    }
  }
}
