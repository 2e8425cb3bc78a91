import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { StoragePorts, StoredItem } from '../reconcile-storage.ts';
import { listAllObjects } from '../../storage/aws/list-all-objects.ts';
import {
  DIRECT_UPLOAD_OBJECT_PREFIX,
  DIRECT_UPLOAD_PREFIX,
  dealFileObjectKey,
  directUploadObjectKey,
  EXPIRY_ATTRIBUTE,
  NOTIFICATION_PREFIX,
  PARTITION_KEY,
  SORT_KEY,
  erasureMarkerKey,
  usageKey,
  userFileObjectKey,
} from '../../storage/keys.ts';

/**
 * Where file bytes live: users' and deals' files, and direct uploads' forms (see
 * `userFileObjectKey`, `dealFileObjectKey`, `directUploadObjectKey`).
 */
const FILE_PREFIXES = ['users/', 'groups/', DIRECT_UPLOAD_OBJECT_PREFIX] as const;

/** The object a file record's bytes live in, by our key convention; undefined for others. */
function objectKeyOf(pk: string, sk: string): string | undefined {
  const fileId = /^FILE#(\d+)$/.exec(sk)?.[1];
  if (fileId === undefined) return undefined;
  const userId = /^USER#(\d+)$/.exec(pk)?.[1];
  if (userId !== undefined) return userFileObjectKey(Number(userId), Number(fileId));
  const deal = /^GROUP#(\d+)#DEAL#(\d+)$/.exec(pk);
  if (deal?.[1] !== undefined && deal[2] !== undefined) {
    return dealFileObjectKey(Number(deal[1]), Number(deal[2]), Number(fileId));
  }
  return undefined;
}

/** The user a partition key names (`USER#<id>`), or undefined for any other partition. */
function userIdOf(pk: string): number | undefined {
  const id = /^USER#([1-9]\d{0,15})$/.exec(pk)?.[1];
  return id === undefined || !Number.isSafeInteger(Number(id)) ? undefined : Number(id);
}

/** A stored value that should be text; anything else reads as absent. */
const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * What an item of the table is, read without its schema: reconcile judges what is stored,
 * malformed items too.
 */
export function storedItem(item: Readonly<Record<string, unknown>>): StoredItem {
  const pk = String(item[PARTITION_KEY]);
  const sk = String(item[SORT_KEY]);
  const userId = userIdOf(pk);
  const objectKey = objectKeyOf(pk, sk);
  if (objectKey !== undefined) {
    const { scan } = item;
    const scanPending =
      typeof scan === 'object' && scan !== null && 'status' in scan && scan.status === 'pending';
    return {
      kind: 'file',
      record: { pk, sk },
      objectKey,
      userId,
      sha256: text(item.sha256),
      scanPending,
    };
  }
  if (userId === undefined) return { kind: 'other' };
  if (sk === usageKey(userId)[SORT_KEY]) return { kind: 'usage', userId };
  if (sk === erasureMarkerKey(userId)[SORT_KEY]) return { kind: 'erased', userId };
  if (sk.startsWith(DIRECT_UPLOAD_PREFIX)) {
    const fileId = Number(sk.slice(DIRECT_UPLOAD_PREFIX.length));
    return {
      kind: 'direct-upload',
      userId,
      status: text(item.status),
      formExpiresAt: text(item.expires_at),
      claimUntil: text(item.claim_until),
      // Only a refused upload has one now; a waiting one stored before may too.
      expiresAtSeconds:
        item[EXPIRY_ATTRIBUTE] === undefined ? Number.NaN : Number(item[EXPIRY_ATTRIBUTE]),
      objectKeys: [directUploadObjectKey(userId, fileId), userFileObjectKey(userId, fileId)],
    };
  }
  if (sk.startsWith(NOTIFICATION_PREFIX)) {
    return {
      kind: 'notification',
      userId,
      notificationId: sk.slice(NOTIFICATION_PREFIX.length),
      status: text(item.status),
      updatedAt: text(item.updated_at),
      leaseUntil: text(item.lease_until),
      notBefore: text(item.not_before),
    };
  }
  return { kind: 'other' };
}

/** The table, scanned strongly consistent, and the bucket's file objects, page by page. */
export function awsStorage(options: {
  readonly dynamodb: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly s3: S3Client;
  readonly bucket: string;
}): Pick<StoragePorts, 'items' | 'objects'> {
  return {
    items: async function* () {
      for await (const page of paginateScan(
        { client: options.dynamodb },
        { TableName: options.tableName, ConsistentRead: true },
      )) {
        yield (page.Items ?? []).map(storedItem);
      }
    },
    // Only where file bytes live: whatever else an operator keeps in the bucket is theirs.
    objects: async function* () {
      for (const prefix of FILE_PREFIXES) {
        for await (const page of listAllObjects(options.s3, options.bucket, prefix)) {
          yield page.map((object) => ({
            key: object.Key ?? '',
            lastModified: object.LastModified ?? new Date(0),
          }));
        }
      }
    },
  };
}
