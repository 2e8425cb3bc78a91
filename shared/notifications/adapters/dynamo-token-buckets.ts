import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AccountErased } from '../../domain/outcome.ts';
import { conditionNotErased } from '../../storage/aws/conditional-writes.ts';
import { failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import { chatChannelBucketKey, EXPIRY_ATTRIBUTE, notifyBucketKey } from '../../storage/keys.ts';
import {
  type Admission,
  type BucketName,
  type BucketRule,
  forgetAfterMs,
  fullAtAfterHold,
  intervalMs,
  type TokenBuckets,
  toleranceMs,
  waitForTokenMs,
} from '../token-buckets.ts';
import { FULL_AT_ATTRIBUTE, fullAtOfRawItem } from './token-bucket-item.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

const keyOf = (bucket: BucketName) =>
  bucket.kind === 'notify' ? notifyBucketKey(bucket.userId) : chatChannelBucketKey();

const NAMES = {
  '#full': FULL_AT_ATTRIBUTE,
  '#entity': 'entity',
  '#expires': EXPIRY_ATTRIBUTE,
} as const;

/** Epoch seconds for the TTL attribute: DynamoDB removes the item some time after. */
const expirySeconds = (ms: number): number => Math.ceil(ms / 1000);

/**
 * Token buckets as single items, each changed only by conditional writes, never read first:
 * a take is one `UpdateItem` whose condition holds only while a token is left, so concurrent
 * callers in any number of containers cannot overspend. A write whose condition fails hands
 * back the item as it is (`ReturnValuesOnConditionCheckFailure`), which says when the next
 * token comes, or which of the two writes applies now:
 *
 * - the bucket is full (no item, or `fullAt` already past): `fullAt = now + interval`;
 * - it has tokens left (`now < fullAt <= now + tolerance`): `fullAt = fullAt + interval`,
 *   an atomic increment, so callers at once do not have to retry each other out.
 *
 * Each item expires once it would be full again, when it says nothing an absent item does not.
 *
 * A sender's bucket is in their partition, so each of its writes is held to their erasure
 * marker in the same transaction, as every write that creates an item of theirs is: once they
 * are erased it is neither made again nor changed (AccountErased), and the erasure's listing
 * finds every bucket there will be. The chat channel's is a plain conditional write.
 */
export class DynamoTokenBuckets implements TokenBuckets {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async take(bucket: BucketName, rule: BucketRule, at: Date): Promise<Admission> {
    const now = at.getTime();
    const common = {
      ':interval': intervalMs(rule),
      ':entity': 'TokenBucket',
      ':expires': expirySeconds(forgetAfterMs(rule, now)),
    };
    // What the last failed write showed; unknown at first, so try the likelier case.
    let fullAt: number | undefined;
    // Each failed write shows a later fullAt than before, so three writes settle it.
    for (let write = 0; write < 3; write += 1) {
      if (fullAt !== undefined && fullAt > now) {
        if (waitForTokenMs(fullAt, rule, now) > 0) {
          return { admitted: false, retryAfterMs: waitForTokenMs(fullAt, rule, now) };
        }
        const spent = await this.write(bucket, {
          ConditionExpression: '#full > :now AND #full <= :last',
          UpdateExpression: 'SET #full = #full + :interval, #entity = :entity, #expires = :expires',
          ExpressionAttributeValues: { ...common, ':now': now, ':last': now + toleranceMs(rule) },
        });
        if (spent.ok) return { admitted: true };
        fullAt = spent.fullAt;
      } else {
        const started = await this.write(bucket, {
          ConditionExpression: 'attribute_not_exists(#full) OR #full <= :now',
          UpdateExpression: 'SET #full = :now + :interval, #entity = :entity, #expires = :expires',
          ExpressionAttributeValues: { ...common, ':now': now },
        });
        if (started.ok) return { admitted: true };
        fullAt = started.fullAt;
      }
    }
    // Reached only if the item moved under us three times over: say when to come back.
    return { admitted: false, retryAfterMs: Math.max(waitForTokenMs(fullAt ?? now, rule, now), 1) };
  }

  async holdUntil(bucket: BucketName, rule: BucketRule, until: Date): Promise<void> {
    const fullAt = fullAtAfterHold(rule, until.getTime());
    // A hold that ends earlier than one already in place changes nothing.
    await this.write(bucket, {
      ConditionExpression: 'attribute_not_exists(#full) OR #full < :held',
      UpdateExpression: 'SET #full = :held, #entity = :entity, #expires = :expires',
      ExpressionAttributeValues: {
        ':held': fullAt,
        ':entity': 'TokenBucket',
        ':expires': expirySeconds(fullAt),
      },
    });
  }

  /**
   * One conditional write (a sender's, with their marker's absence in the same transaction);
   * when its condition fails, the bucket's fullAt as it stands.
   */
  private async write(
    bucket: BucketName,
    expressions: {
      readonly ConditionExpression: string;
      readonly UpdateExpression: string;
      readonly ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly fullAt: number | undefined }> {
    const update = {
      TableName: this.tableName,
      Key: keyOf(bucket),
      ...expressions,
      ExpressionAttributeNames: NAMES,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    } as const;
    try {
      if (bucket.kind === 'notify') {
        await transactWrite(this.client, {
          TransactItems: [{ Update: update }, conditionNotErased(this.tableName, bucket.userId)],
        });
      } else {
        await this.client.send(new UpdateCommand(update));
      }
      return { ok: true };
    } catch (error) {
      if (failedAt(error, 1)) throw new AccountErased();
      if (error instanceof TransactionCanceledException && failedAt(error, 0)) {
        return { ok: false, fullAt: fullAtOfRawItem(error.CancellationReasons?.[0]?.Item) };
      }
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return { ok: false, fullAt: fullAtOfRawItem(error.Item) };
    }
  }
}

/** Token buckets in the table: senders' notify allowances and the chat channel's pace. */
export const rateLimits = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoTokenBuckets(documents(), TABLE_NAME);
