import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { AccountErased } from '../../domain/outcome.ts';
import { completableUntil } from '../../direct-uploads/direct-upload.ts';
import { quotaRefusal, type Storage, type StorageLimits, type Usage } from '../usage.ts';
import type { UsageLedger } from '../usage-ledger.ts';
import { conditionNotErased } from '../../storage/aws/conditional-writes.ts';
import { conditionsFailed, failedAt, transactWrite } from '../../storage/aws/transactions.ts';
import { fromDirectUploadItem } from '../../storage/direct-upload-item.ts';
import { fromUsageItem, type StoredUsage, toUsageItem } from './usage-item.ts';
import {
  DIRECT_UPLOAD_PREFIX,
  FILE_PREFIX,
  PARTITION_KEY,
  SORT_KEY,
  usageKey,
  userPartition,
} from '../../storage/keys.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** How a write changes a user's usage: what it adds to (or, negative, takes from) each part. */
export interface UsageChange {
  readonly held: Storage;
  readonly reserved: Storage;
}

const NONE: Storage = { files: 0, bytes: 0 };

/** A new file or reservation: held, and reserved when it is a direct upload's. */
export const adding = (storage: Storage, reserved = false): UsageChange => ({
  held: storage,
  reserved: reserved ? storage : NONE,
});

/** The opposite change: what `adding` added, taken away. */
export const removing = (storage: Storage, reserved = false): UsageChange => ({
  held: { files: -storage.files, bytes: -storage.bytes },
  reserved: reserved ? { files: -storage.files, bytes: -storage.bytes } : NONE,
});

/**
 * The transaction item that changes the user's usage. With `limits`, it holds only while
 * what the user holds stays within them afterwards (DynamoDB's conditions cannot add, so the
 * room is worked out here: held <= limit - asked). It needs the usage item to exist, so no
 * write counts against a usage that was never counted (`transactCounted` counts it).
 */
export function usageUpdate(
  tableName: string,
  userId: number,
  change: UsageChange,
  limits?: StorageLimits,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: usageKey(userId),
      UpdateExpression:
        'ADD held_files :hf, held_bytes :hb, reserved_files :rf, reserved_bytes :rb, version :one',
      ConditionExpression:
        limits === undefined
          ? 'attribute_exists(#pk)'
          : 'attribute_exists(#pk) AND held_files <= :roomFiles AND held_bytes <= :roomBytes',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ExpressionAttributeValues: {
        ':hf': change.held.files,
        ':hb': change.held.bytes,
        ':rf': change.reserved.files,
        ':rb': change.reserved.bytes,
        ':one': 1,
        ...(limits === undefined
          ? {}
          : {
              ':roomFiles': limits.files - change.held.files,
              ':roomBytes': limits.bytes - change.held.bytes,
            }),
      },
    },
  };
}

/** Tries at a counted write whose usage moves under it each time; then DynamoDB's refusal. */
const COUNTED_ATTEMPTS = 4;

/**
 * Sends a transaction that changes a user's usage (`usageUpdate` at `usageIndex`). When the
 * usage was never counted, counts it and sends again; when it is over the limits, the
 * refusal says by how much (QuotaExceeded), with nothing written. With `erasedIndex`, an
 * erased owner's write is AccountErased. Other failures are the caller's to read.
 */
export async function transactCounted(
  client: DynamoDBDocumentClient,
  tableName: string,
  write: {
    readonly userId: number;
    readonly items: readonly TransactItem[];
    readonly usageIndex: number;
    readonly erasedIndex?: number;
    readonly limits?: StorageLimits;
    readonly asked?: Storage;
  },
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await transactWrite(client, { TransactItems: [...write.items] });
      return;
    } catch (error) {
      if (write.erasedIndex !== undefined && failedAt(error, write.erasedIndex)) {
        throw new AccountErased();
      }
      if (!failedAt(error, write.usageIndex)) throw error;
      const stored = await readUsage(client, tableName, write.userId);
      const usage = stored?.usage ?? (await usageFromItems(client, tableName, write.userId));
      const refusal =
        write.limits === undefined
          ? undefined
          : quotaRefusal(usage, write.limits, write.asked ?? NONE);
      // Refused before a first count is stored: a refusal stores nothing at all.
      if (refusal !== undefined) throw refusal;
      if (stored === undefined) {
        await storeFirstCount(client, tableName, write.userId, usage);
        continue;
      }
      // Room was freed between the write and the read: the write may pass now. One whose
      // usage keeps moving under it is as busy as a transaction that keeps conflicting.
      if (attempt >= COUNTED_ATTEMPTS) {
        throw new TransactionConflictException({
          message: "The user's usage kept changing under the write",
          $metadata: {},
        });
      }
    }
  }
}

async function readUsage(
  client: DynamoDBDocumentClient,
  tableName: string,
  userId: number,
): Promise<StoredUsage | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: usageKey(userId), ConsistentRead: true }),
  );
  return Item === undefined ? undefined : fromUsageItem(Item);
}

/**
 * Every item of the user's partition whose sort key starts with `prefix`; with `attributes`,
 * only those of each (a count of 10,000 files reads their sizes, not their names).
 */
async function* itemsUnder(
  client: DynamoDBDocumentClient,
  tableName: string,
  userId: number,
  prefix: string,
  attributes?: readonly string[],
): AsyncGenerator<Record<string, unknown>> {
  const projected = Object.fromEntries(
    (attributes ?? []).map((name, i) => [`#a${String(i)}`, name]),
  );
  const pages = paginateQuery(
    { client },
    {
      TableName: tableName,
      ConsistentRead: true,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ...(attributes === undefined
        ? {}
        : { ProjectionExpression: Object.keys(projected).join(', ') }),
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY, ...projected },
      ExpressionAttributeValues: { ':pk': userPartition(userId), ':prefix': prefix },
    },
  );
  for await (const page of pages) yield* page.Items ?? [];
}

/**
 * The user's usage from their items: each file at its size, each pending direct upload
 * (one not refused) at its declared size.
 */
async function usageFromItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  userId: number,
): Promise<Usage> {
  const used = { files: 0, bytes: 0 };
  for await (const item of itemsUnder(client, tableName, userId, FILE_PREFIX, ['filesize'])) {
    used.files += 1;
    used.bytes += typeof item.filesize === 'number' ? item.filesize : 0;
  }
  const reserved = { files: 0, bytes: 0 };
  const uploads = itemsUnder(client, tableName, userId, DIRECT_UPLOAD_PREFIX, [
    'status',
    'reserved',
    'declared_size',
  ]);
  for await (const item of uploads) {
    // A refused upload gave its reservation back; one started before quotas held none.
    if (item.status === 'rejected' || item.reserved !== true) continue;
    reserved.files += 1;
    reserved.bytes += typeof item.declared_size === 'number' ? item.declared_size : 0;
  }
  return { used, reserved };
}

/**
 * Stores a user's first count (`usageFromItems`). No write that changes what it counts can
 * land meanwhile (each needs the usage item), so the count is exact; two counting at once
 * write the same, and the second finds the first's. An erased user gets none: AccountErased.
 */
async function storeFirstCount(
  client: DynamoDBDocumentClient,
  tableName: string,
  userId: number,
  usage: Usage,
): Promise<void> {
  try {
    await transactWrite(client, {
      TransactItems: [
        {
          Put: {
            TableName: tableName,
            Item: toUsageItem(userId, usage, 1, new Date().toISOString()),
            ConditionExpression: 'attribute_not_exists(#pk)',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY },
          },
        },
        conditionNotErased(tableName, userId),
      ],
    });
  } catch (error) {
    if (failedAt(error, 1)) throw new AccountErased();
    if (!failedAt(error, 0)) throw error;
  }
}

const sameUsage = (a: Usage, b: Usage): boolean =>
  a.used.files === b.used.files &&
  a.used.bytes === b.used.bytes &&
  a.reserved.files === b.reserved.files &&
  a.reserved.bytes === b.reserved.bytes;

/** Tries at a recount while the user's own writes keep moving the usage. */
const RECOUNT_ATTEMPTS = 10;

export class DynamoUsageLedger implements UsageLedger {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async read(userId: number): Promise<Usage> {
    // A read writes nothing: a user never counted is counted from their items each time,
    // until their first write stores the count (`transactCounted`).
    const stored = await readUsage(this.client, this.tableName, userId);
    return stored?.usage ?? usageFromItems(this.client, this.tableName, userId);
  }

  async releaseExpired(userId: number, now: Date): Promise<number> {
    let released = 0;
    const at = now.toISOString();
    for await (const item of itemsUnder(
      this.client,
      this.tableName,
      userId,
      DIRECT_UPLOAD_PREFIX,
    )) {
      const upload = fromDirectUploadItem(item);
      const claimed = upload.status === 'completing' && (upload.claim?.until ?? '') >= at;
      const holds = upload.reserved && upload.status !== 'rejected';
      if (!holds || claimed || completableUntil(upload) > at) continue;
      try {
        await transactCounted(this.client, this.tableName, {
          userId,
          usageIndex: 1,
          items: [
            {
              Delete: {
                TableName: this.tableName,
                Key: { [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] },
                // Still waiting, or its completer is gone: no completion can land after this.
                ConditionExpression:
                  '#status = :pending OR (#status = :completing AND #until < :now)',
                ExpressionAttributeNames: { '#status': 'status', '#until': 'claim_until' },
                ExpressionAttributeValues: {
                  ':pending': 'pending',
                  ':completing': 'completing',
                  ':now': at,
                },
              },
            },
            usageUpdate(
              this.tableName,
              userId,
              removing({ files: 1, bytes: upload.declaredSize }, true),
            ),
          ],
        });
        released += 1;
      } catch (error) {
        // Completed, cancelled or claimed since it was read: it is not ours to give back.
        if (!failedAt(error, 0)) throw error;
      }
    }
    return released;
  }

  async recount(userId: number): Promise<{ before: Usage | undefined; after: Usage }> {
    for (let attempt = 1; ; attempt++) {
      const stored = await readUsage(this.client, this.tableName, userId);
      const counted = await usageFromItems(this.client, this.tableName, userId);
      if (stored !== undefined && sameUsage(stored.usage, counted)) {
        return { before: stored.usage, after: counted };
      }
      try {
        await transactWrite(this.client, {
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: toUsageItem(
                  userId,
                  counted,
                  (stored?.version ?? 0) + 1,
                  new Date().toISOString(),
                ),
                // Only over the usage that was read: a write since then moved it, so count again.
                ConditionExpression:
                  stored === undefined ? 'attribute_not_exists(#pk)' : '#version = :version',
                ExpressionAttributeNames:
                  stored === undefined ? { '#pk': PARTITION_KEY } : { '#version': 'version' },
                ...(stored === undefined
                  ? {}
                  : { ExpressionAttributeValues: { ':version': stored.version } }),
              },
            },
            conditionNotErased(this.tableName, userId),
          ],
        });
        return { before: stored?.usage, after: counted };
      } catch (error) {
        if (failedAt(error, 1)) throw new AccountErased();
        if (!conditionsFailed(error) || attempt >= RECOUNT_ATTEMPTS) throw error;
      }
    }
  }
}

/** Users' usage against their storage limits, an item beside their files. */
export const usage = ({
  documents,
  TABLE_NAME,
}: Pick<AdapterSources, 'documents' | 'TABLE_NAME'>) =>
  new DynamoUsageLedger(documents(), TABLE_NAME);
