import type { FileRef } from '../scanning/file-scans.ts';

/**
 * Single-table keys. Every item a user owns lives in that user's partition, so a query
 * built from the caller's id cannot reach anyone else's data.
 */
export const PARTITION_KEY = 'PK';
export const SORT_KEY = 'SK';

/**
 * The TTL attribute (epoch seconds) of items that expire: pending uploads, idempotency,
 * notifications, rate-limit buckets.
 */
export const EXPIRY_ATTRIBUTE = 'expiration';

/** A counter item that hands out blocks of ids for one sequence. */
export const counterKey = (sequence: string) =>
  ({ [PARTITION_KEY]: `COUNTER#${sequence}`, [SORT_KEY]: `COUNTER#${sequence}` }) as const;

/** The sequence every file id comes from, user's or deal's: a file id names one file. */
export const FILE_ID_SEQUENCE = 'file';

/**
 * Partitions whose keys are `prefix` and an id: the key of one, and the IAM
 * `dynamodb:LeadingKeys` pattern that matches them all, made from the same prefix.
 */
const partitionsUnder = (prefix: string) =>
  ({ key: (id: number): string => `${prefix}${id}`, pattern: `${prefix}*` }) as const;
/** A partition of its own: its pattern is its key. */
const onePartition = (key: string) => ({ key: () => key, pattern: key }) as const;

/**
 * The table's kinds of partition, by the name a function's grant reaches them by
 * (`{ items: ['GetItem'], in: 'users' }`): each builds its keys and gives the pattern they
 * all match, so a grant reaches what the builder builds and no more. A new kind of partition
 * is one entry here; an item kind in an existing partition adds none. The idempotency
 * records' partitions, one kind per operation, follow `IDEMPOTENT_OPERATIONS` (below).
 */
export const PARTITIONS = {
  /** Every item a user owns. */
  users: partitionsUnder('USER#'),
  /** A group's own partition, and its deals' file partitions, which start with its key. */
  groups: partitionsUnder('GROUP#'),
  /** The counter file ids come from. */
  fileIds: onePartition(counterKey(FILE_ID_SEQUENCE)[PARTITION_KEY]),
  /** The chat channel's own pace, shared by every worker: one item, in a partition of its own. */
  chatChannel: onePartition('CHANNEL#chat'),
} as const;

export const userPartition = PARTITIONS.users.key;
export const FILE_PREFIX = 'FILE#';
export const userFileSortKey = (fileId: number): string => `${FILE_PREFIX}${fileId}`;
/** A direct-to-S3 upload we signed that has not yet become a UserFile. */
export const DIRECT_UPLOAD_PREFIX = 'UPLOAD#';
export const directUploadSortKey = (fileId: number): string => `${DIRECT_UPLOAD_PREFIX}${fileId}`;
/**
 * A user's last refused direct uploads, in one item beside their uploads but outside `UPLOAD#`:
 * a refusal gives its reservation back, so no limit bounds how many a user makes, and the
 * Query of `UPLOAD#` that every usage read makes reads only uploads that hold a reservation.
 */
export const uploadRefusalsKey = (userId: number) =>
  ({ [PARTITION_KEY]: userPartition(userId), [SORT_KEY]: 'REFUSED#uploads' }) as const;
/** A submission notification, in its sender's partition: only they can look it up. */
export const NOTIFICATION_PREFIX = 'NOTIFICATION#';
export const notificationSortKey = (notificationId: string): string =>
  `${NOTIFICATION_PREFIX}${notificationId}`;
/**
 * A sender's notify allowance (a token bucket), beside their notifications: erasing the user
 * takes it too, and the notify function's grant on `USER#*` already reaches it.
 */
export const notifyBucketKey = (userId: number) =>
  ({ [PARTITION_KEY]: userPartition(userId), [SORT_KEY]: 'LIMIT#notify' }) as const;
/**
 * A user's erasure marker, beside their items: written first by an erasure and kept, so every
 * write that creates an item of theirs (a file, a pending upload, a notification) holds a
 * transaction to its absence and none can land behind the erasure's deletes.
 */
export const erasureMarkerKey = (userId: number) =>
  ({ [PARTITION_KEY]: userPartition(userId), [SORT_KEY]: 'ERASED' }) as const;
/**
 * What a user's files and pending direct uploads hold against their limits, beside them: every
 * write that adds or removes one changes it in the same transaction.
 */
export const usageKey = (userId: number) =>
  ({ [PARTITION_KEY]: userPartition(userId), [SORT_KEY]: 'USAGE' }) as const;
/** The chat channel's pace (a token bucket), in the channel's partition. */
export const chatChannelBucketKey = () =>
  ({ [PARTITION_KEY]: PARTITIONS.chatChannel.key(), [SORT_KEY]: 'LIMIT#post' }) as const;

/**
 * A group's own partition holds the group, its members and its deals, so one query shows an
 * operator the whole group and a membership lookup is a single key.
 */
export const groupPartition = PARTITIONS.groups.key;
export const groupSortKey = (groupId: number): string => `GROUP#${groupId}`;
export const memberSortKey = (userId: number): string => `MEMBER#${userId}`;
/** What every deal's sort key in its group's partition starts with. */
export const DEAL_SORT_PREFIX = 'DEAL#';
export const dealSortKey = (dealId: number): string => `${DEAL_SORT_PREFIX}${dealId}`;
/**
 * A deal's files live in a partition named by both ids: a file is in a deal of a group only
 * if its key says so, and no lookup can wander into another group's deal.
 */
export const dealPartition = (groupId: number, dealId: number): string =>
  `${groupPartition(groupId)}#DEAL#${dealId}`;
export const dealFileSortKey = (fileId: number): string => `${FILE_PREFIX}${fileId}`;

/**
 * Files newest first, in pages: a local secondary index over every file partition (a user's,
 * a deal's), sorted by creation time and then id. Ids come in blocks per container, so the
 * table's own sort key is no time order (docs/adr/0006-files-by-creation-index.md).
 */
export const FILES_BY_CREATION_INDEX = 'FilesByCreation';
export const FILE_CREATED_ATTRIBUTE = 'file_created';
/** Fixed width, so text order is time order, then id order: `2026-11-24T06:32:48.123Z#0…042`. */
export const fileCreatedKey = (createdAt: string, fileId: number): string =>
  `${createdAt}#${String(fileId).padStart(16, '0')}`;

/** Where a user file's bytes live in the bucket. Ours, never the client's name. */
export const userFileObjectKey = (userId: number, fileId: number): string =>
  `users/${userId}/files/${fileId}`;

/**
 * Where a direct upload's signed form puts its bytes: a key of their own, never the file's.
 * Completion copies them to the file's key; after that no form can reach the recorded bytes,
 * and whatever a reused form still sends here is deleted.
 */
export const DIRECT_UPLOAD_OBJECT_PREFIX = 'uploads/';
export const directUploadObjectKey = (userId: number, fileId: number): string =>
  `${DIRECT_UPLOAD_OBJECT_PREFIX}${userId}/${fileId}`;

const DIRECT_UPLOAD_OBJECT_KEY = /^uploads\/([1-9]\d{0,15})\/([1-9]\d{0,15})$/;

/** The owner and file id a direct upload's object key names, or undefined for any other key. */
export function parseDirectUploadObjectKey(
  key: string,
): { readonly userId: number; readonly fileId: number } | undefined {
  return safeIds(DIRECT_UPLOAD_OBJECT_KEY.exec(key));
}

const USER_FILE_OBJECT_KEY = /^users\/([1-9]\d{0,15})\/files\/([1-9]\d{0,15})$/;
const DEAL_FILE_OBJECT_KEY =
  /^groups\/([1-9]\d{0,15})\/deals\/([1-9]\d{0,15})\/files\/([1-9]\d{0,15})$/;

/** The ids a file object's key names: a user file's or a deal file's; undefined for others. */
export function parseFileObjectKey(key: string): FileRef | undefined {
  const user = safeIds(USER_FILE_OBJECT_KEY.exec(key));
  if (user !== undefined) return { kind: 'user-file', ...user };
  const deal = DEAL_FILE_OBJECT_KEY.exec(key);
  if (deal === null) return undefined;
  const [groupId, dealId, fileId] = [deal[1], deal[2], deal[3]].map(Number);
  return groupId !== undefined &&
    dealId !== undefined &&
    fileId !== undefined &&
    [groupId, dealId, fileId].every(Number.isSafeInteger)
    ? { kind: 'deal-file', groupId, dealId, fileId }
    : undefined;
}

/** Every key that may hold a user's bytes starts with one of these: their files and uploads. */
export const userObjectPrefixes = (userId: number): readonly string[] => [
  `users/${userId}/`,
  `${DIRECT_UPLOAD_OBJECT_PREFIX}${userId}/`,
];

/** Where a deal file's bytes live: beside no user's files, so no upload event reaches them. */
export const dealFileObjectKey = (groupId: number, dealId: number, fileId: number): string =>
  `groups/${groupId}/deals/${dealId}/files/${fileId}`;

/** The key of the object that holds a file's bytes: `parseFileObjectKey` read backwards. */
export const fileObjectKey = (file: FileRef): string =>
  file.kind === 'user-file'
    ? userFileObjectKey(file.userId, file.fileId)
    : dealFileObjectKey(file.groupId, file.dealId, file.fileId);

/**
 * Operations that honour an `Idempotency-Key`. Records live in a partition per operation and
 * caller: a grant reaches one operation's records, and erasing a user reaches theirs.
 */
export const IDEMPOTENT_OPERATIONS = {
  uploadUserFile: 'upload-user-file',
  notifySubmission: 'notify-submission',
} as const;
export type IdempotentOperation =
  (typeof IDEMPOTENT_OPERATIONS)[keyof typeof IDEMPOTENT_OPERATIONS];
/** Every caller's partition of one operation: the key of one, and the pattern of all. */
export const idempotencyPartitions = (operation: IdempotentOperation) =>
  partitionsUnder(`IDEMPOTENCY#${operation}#USER#`);
export const idempotencyPartition = (operation: IdempotentOperation, userId: number): string =>
  idempotencyPartitions(operation).key(userId);

function safeIds(
  match: RegExpExecArray | null,
): { readonly userId: number; readonly fileId: number } | undefined {
  if (match === null) return undefined;
  const userId = Number(match[1]);
  const fileId = Number(match[2]);
  return Number.isSafeInteger(userId) && Number.isSafeInteger(fileId)
    ? { userId, fileId }
    : undefined;
}

/**
 * The prefixes GuardDuty's plan scans: the keys of recorded bytes, a user's files and deal
 * files. Not `uploads/`: a form's bytes there are copied to `users/` once completed, and the
 * copy is scanned.
 */
export const SCANNED_OBJECT_PREFIXES = ['users/', 'groups/'] as const;
/** The tag GuardDuty writes on each object it scans, its value the scan's result. */
export const SCAN_STATUS_TAG = 'GuardDutyMalwareScanStatus';
/** The tag an operator's release writes: the bucket admits a download with either tag. */
export const SCAN_RELEASE_TAG = 'FileServiceScanRelease';
export const SCAN_RELEASED_VALUE = 'released';
