import {
  type DynamoDBDocumentClient,
  GetCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import {
  ConditionalCheckFailedException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { AccountErased } from '../../domain/outcome.ts';
import { conditionNotErased, putNewItem } from '../../storage/aws/conditional-writes.ts';
import { conditionsFailed, failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import {
  adding,
  removing,
  transactCounted,
  usageUpdate,
} from '../../usage/adapters/dynamo-usage-ledger.ts';
import {
  directUploadSortKey,
  PARTITION_KEY,
  SORT_KEY,
  uploadRefusalsKey,
  userPartition,
} from '../../storage/keys.ts';
import {
  fromDirectUploadItem,
  fromRefusedUpload,
  toUploadFields,
} from '../../storage/direct-upload-item.ts';
import { toUserFileItem } from '../../storage/file-items.ts';
import type { StorageLimits } from '../../usage/usage.ts';
import { oneFile } from '../../usage/usage.ts';
import type { UserFile } from '../../user-files/user-file.ts';
import {
  type CompletionClaim,
  type DirectUpload,
  type DirectUploadRejection,
} from '../direct-upload.ts';
import type { DirectUploadRepository } from '../direct-upload-repository.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import {
  fromUploadRefusalsItem,
  type UploadRefusals,
  withoutRefusal,
  withRefusal,
} from './upload-refusals-item.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const keyOf = (userId: number, fileId: number) => ({
  [PARTITION_KEY]: userPartition(userId),
  [SORT_KEY]: directUploadSortKey(fileId),
});

export const toDirectUploadItem = (upload: DirectUpload) => ({
  ...keyOf(upload.userId, upload.id),
  ...toUploadFields(upload),
  status: upload.status,
  ...(upload.rejection === undefined ? {} : { rejection: upload.rejection }),
  ...(upload.claim === undefined
    ? {}
    : { claim_token: upload.claim.token, claim_until: upload.claim.until }),
  // A waiting upload holds a reservation, so no TTL may take it unseen: it is swept once it
  // can no longer be completed (`UsageLedger.releaseExpired`). A refused one leaves this key
  // for its owner's refusals item (`reject`).
});

/** What an upload holds against its owner's limits while it waits: one file, as declared. */
const reservationOf = (upload: Pick<DirectUpload, 'declaredSize'>) => oneFile(upload.declaredSize);

/** Tries at writing a user's refusals while others of theirs land at once. */
const REFUSAL_ATTEMPTS = 8;

/** DynamoDB's busy answer (a 503), for items that kept changing under a write. */
const busy = (message: string) => new TransactionConflictException({ message, $metadata: {} });

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

  async start(upload: DirectUpload, limits: StorageLimits): Promise<void> {
    await transactCounted(this.client, this.tableName, {
      userId: upload.userId,
      items: [
        { Put: putNewItem(this.tableName, toDirectUploadItem(upload)) },
        usageUpdate(this.tableName, upload.userId, adding(reservationOf(upload), true), limits),
        conditionNotErased(this.tableName, upload.userId),
      ],
      usageIndex: 1,
      erasedIndex: 2,
      limits,
      asked: reservationOf(upload),
    });
  }

  async find(userId: number, fileId: number): Promise<DirectUpload | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keyOf(userId, fileId),
        ConsistentRead: true,
      }),
    );
    if (Item !== undefined) return fromDirectUploadItem(Item);
    // Refused: kept among its owner's last refusals, or forgotten (as gone as a cancelled one).
    const refused = (await this.readRefusals(userId))?.refusals.find(({ id }) => id === fileId);
    return refused === undefined ? undefined : fromRefusedUpload(refused);
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

  /**
   * The upload leaves its own key for its owner's refusals item, in one transaction with the
   * reservation given back: refused uploads never pile up where a usage read looks
   * (`UsageLedger.releaseExpired` queries `UPLOAD#`), and however many a user makes, one item
   * of the last few holds them. An erased owner's upload is the erasure's to take: false.
   */
  async reject(
    upload: DirectUpload,
    reason: DirectUploadRejection,
    token: string,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const read = await this.readRefusals(upload.userId);
      const items: TransactItem[] = [
        {
          Delete: {
            TableName: this.tableName,
            Key: keyOf(upload.userId, upload.id),
            ConditionExpression: '#status = :completing AND #token = :token',
            ExpressionAttributeNames: { '#status': 'status', '#token': 'claim_token' },
            ExpressionAttributeValues: { ':completing': 'completing', ':token': token },
          },
        },
        this.refusalsWrite(read, withRefusal(read, upload, reason)),
        conditionNotErased(this.tableName, upload.userId),
      ];
      try {
        if (upload.reserved) {
          await transactCounted(this.client, this.tableName, {
            userId: upload.userId,
            items: [
              ...items,
              usageUpdate(this.tableName, upload.userId, removing(reservationOf(upload), true)),
            ],
            usageIndex: items.length,
            erasedIndex: 2,
          });
        } else {
          await transactWrite(this.client, { TransactItems: items });
        }
        return true;
      } catch (error) {
        if (failedAt(error, 0)) return false;
        if (error instanceof AccountErased || failedAt(error, 2)) return false;
        // Another refusal of theirs landed since the read: read again.
        if (!failedAt(error, 1)) throw error;
        if (attempt >= REFUSAL_ATTEMPTS) throw busy("The user's refusals kept changing");
      }
    }
  }

  async cancel(upload: DirectUpload, token: string | undefined): Promise<boolean> {
    // A refused upload gave its reservation back when it was refused.
    if (upload.status === 'rejected') return this.forgetRefusal(upload);
    // Any other is removed only under the canceller's own claim, so one a completer took
    // over is not.
    const remove = {
      Delete: {
        TableName: this.tableName,
        Key: keyOf(upload.userId, upload.id),
        ConditionExpression: '#status = :completing AND #token = :token',
        ExpressionAttributeNames: { '#status': 'status', '#token': 'claim_token' },
        ExpressionAttributeValues: { ':completing': 'completing', ':token': token ?? '' },
      },
    };
    return this.endClaimed(upload, remove);
  }

  /**
   * Ends an upload by `write` (its condition says when it may), giving its reservation back
   * in the same transaction when it holds one: false when the condition did not hold. A
   * transaction that kept conflicting is DynamoDB's busy answer, raised as such (a 503).
   */
  private async endClaimed(upload: DirectUpload, write: TransactItem): Promise<boolean> {
    try {
      if (!upload.reserved) {
        await transactWrite(this.client, { TransactItems: [write] });
        return true;
      }
      await transactCounted(this.client, this.tableName, {
        userId: upload.userId,
        items: [
          write,
          usageUpdate(this.tableName, upload.userId, removing(reservationOf(upload), true)),
        ],
        usageIndex: 1,
      });
      return true;
    } catch (error) {
      if (failedAt(error, 0)) return false;
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

  async complete(
    file: UserFile,
    upload: DirectUpload,
    token: string,
  ): Promise<'completed' | 'conflict' | 'erased'> {
    // The reservation becomes the file: one file stays held, its bytes settle to the size
    // recorded (never above the declared size, which the form and completion both hold to).
    // An upload started before quotas reserved nothing: its file is simply added.
    const settled = upload.reserved
      ? {
          held: { files: 0, bytes: file.filesize - upload.declaredSize },
          reserved: removing(reservationOf(upload), true).reserved,
        }
      : adding(oneFile(file.filesize));
    try {
      await transactCounted(this.client, this.tableName, {
        userId: file.userId,
        items: [
          { Put: putNewItem(this.tableName, toUserFileItem(file)) },
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
          usageUpdate(this.tableName, file.userId, settled),
        ],
        usageIndex: 3,
        erasedIndex: 2,
      });
      return 'completed';
    } catch (error) {
      if (error instanceof AccountErased || failedAt(error, 2)) return 'erased';
      if (conditionsFailed(error)) return 'conflict';
      throw error;
    }
  }

  /**
   * Forgets a refused upload: its entry in its owner's refusals item, and the item of its own
   * that an upload refused before that item existed keeps until its TTL.
   */
  private async forgetRefusal(upload: DirectUpload): Promise<boolean> {
    const own = {
      Delete: {
        TableName: this.tableName,
        Key: keyOf(upload.userId, upload.id),
        ConditionExpression: 'attribute_not_exists(#pk) OR #status = :rejected',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#status': 'status' },
        ExpressionAttributeValues: { ':rejected': 'rejected' },
      },
    };
    for (let attempt = 1; ; attempt++) {
      const read = await this.readRefusals(upload.userId);
      const left = read === undefined ? undefined : withoutRefusal(read, upload.id);
      try {
        await transactWrite(this.client, {
          TransactItems: [own, ...(left === undefined ? [] : [this.refusalsWrite(read, left)])],
        });
        return true;
      } catch (error) {
        if (failedAt(error, 0)) return false;
        if (!failedAt(error, 1)) throw error;
        if (attempt >= REFUSAL_ATTEMPTS) throw busy("The user's refusals kept changing");
      }
    }
  }

  private async readRefusals(userId: number): Promise<UploadRefusals | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: uploadRefusalsKey(userId),
        ConsistentRead: true,
      }),
    );
    return Item === undefined ? undefined : fromUploadRefusalsItem(Item);
  }

  /** Writes the refusals item as `next`, only over the version `read` (none: no item yet). */
  private refusalsWrite(read: UploadRefusals | undefined, next: UploadRefusals): TransactItem {
    const over: Pick<
      UpdateCommandInput,
      'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    > =
      read === undefined
        ? {
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          }
        : {
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': read.version },
          };
    if (next.refusals.length === 0) {
      const key = { [PARTITION_KEY]: next[PARTITION_KEY], [SORT_KEY]: next[SORT_KEY] };
      return { Delete: { TableName: this.tableName, Key: key, ...over } };
    }
    return { Put: { TableName: this.tableName, Item: next, ...over } };
  }
}

/** Direct uploads' records, from the signed form to the UserFile. */
export const directUploads = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoDirectUploadRepository(documents(), TABLE_NAME);
