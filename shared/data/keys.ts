/**
 * Single-table keys. Every item a user owns lives in that user's partition, so a query
 * built from the caller's id cannot reach anyone else's data.
 */
export const PARTITION_KEY = 'PK';
export const SORT_KEY = 'SK';

export const userPartition = (userId: number): string => `USER#${userId}`;
export const FILE_PREFIX = 'FILE#';
export const userFileSortKey = (fileId: number): string => `${FILE_PREFIX}${fileId}`;
