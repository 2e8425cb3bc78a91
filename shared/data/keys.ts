/**
 * Single-table keys. Every item a user owns lives in that user's partition, so a query
 * built from the caller's id cannot reach anyone else's data.
 */
export const PARTITION_KEY = 'PK';
export const SORT_KEY = 'SK';

/** The TTL attribute (epoch seconds) of items that expire: pending uploads, idempotency. */
export const EXPIRY_ATTRIBUTE = 'expiration';

export const userPartition = (userId: number): string => `USER#${userId}`;
export const FILE_PREFIX = 'FILE#';
export const userFileSortKey = (fileId: number): string => `${FILE_PREFIX}${fileId}`;
/** A direct-to-S3 upload we signed that has not yet become a UserFile. */
export const directUploadSortKey = (fileId: number): string => `UPLOAD#${fileId}`;

/** A counter item that hands out blocks of ids for one sequence. */
export const counterKey = (sequence: string) =>
  ({ [PARTITION_KEY]: `COUNTER#${sequence}`, [SORT_KEY]: `COUNTER#${sequence}` }) as const;

/** Where a user file's bytes live in the bucket. Ours, never the client's name. */
export const userFileObjectKey = (userId: number, fileId: number): string =>
  `users/${userId}/files/${fileId}`;

const USER_FILE_OBJECT_KEY = /^users\/([1-9]\d{0,15})\/files\/([1-9]\d{0,15})$/;

/** The owner and id a user file's object key names, or undefined for any other key. */
export function parseUserFileObjectKey(
  key: string,
): { readonly userId: number; readonly fileId: number } | undefined {
  const match = USER_FILE_OBJECT_KEY.exec(key);
  if (match === null) return undefined;
  const userId = Number(match[1]);
  const fileId = Number(match[2]);
  return Number.isSafeInteger(userId) && Number.isSafeInteger(fileId)
    ? { userId, fileId }
    : undefined;
}
