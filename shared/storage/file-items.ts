import * as z from 'zod';
import { SCAN_RESULTS } from '../domain/file-scan.ts';
import { FILE_TYPES } from '../domain/file-type.ts';
import {
  dealFileSortKey,
  dealPartition,
  FILE_CREATED_ATTRIBUTE,
  fileCreatedKey,
  PARTITION_KEY,
  SORT_KEY,
  userFileSortKey,
  userPartition,
} from './keys.ts';
import type { DealFile } from '../deal-files/deal-file.ts';
import type { UserFile } from '../user-files/user-file.ts';

/**
 * How files are stored. The attribute names are the table's, fixed by the items already
 * written; they happen to be the contract's field names, but an item is not an API body:
 * it is written and read only through these schemas, and an item that does not match one
 * is a fault (logged, a 500), never a file with made-up values.
 */
const storedFile = {
  id: z.number().int().positive(),
  name: z.string(),
  type: z.enum(FILE_TYPES).nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  is_archived: z.boolean(),
  filesize: z.number().int().nonnegative(),
  location: z.string().nullable(),
  // Absent on files stored before digests were kept.
  sha256: z.string().optional(),
  // Absent on files stored before scanning began.
  scan: z
    .discriminatedUnion('status', [
      z.object({ status: z.literal('pending') }),
      z.object({ status: z.literal('scanned'), result: z.enum(SCAN_RESULTS), at: z.string() }),
      z.object({
        status: z.literal('released'),
        at: z.string(),
        by: z.string(),
        reason: z.string(),
      }),
    ])
    .optional(),
};

/** The FilesByCreation index's sort key: written with every file, never read back. */
const indexed = { [FILE_CREATED_ATTRIBUTE]: z.string() };

const USER_FILE_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  ...indexed,
  entity: z.literal('UserFile'),
  user_id: z.number().int().positive(),
  ...storedFile,
});
export type UserFileItem = z.infer<typeof USER_FILE_ITEM>;

const DEAL_FILE_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  ...indexed,
  entity: z.literal('DealFile'),
  group_id: z.number().int().positive(),
  deal_id: z.number().int().positive(),
  ...storedFile,
});
export type DealFileItem = z.infer<typeof DEAL_FILE_ITEM>;

const fileAttributes = (file: UserFile | DealFile) => ({
  [FILE_CREATED_ATTRIBUTE]: fileCreatedKey(file.createdAt, file.id),
  id: file.id,
  name: file.name,
  type: file.type,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
  is_archived: file.isArchived,
  filesize: file.filesize,
  location: file.location,
  ...(file.sha256 === undefined ? {} : { sha256: file.sha256 }),
  ...(file.scan === undefined ? {} : { scan: file.scan }),
});

const fileOf = (item: z.infer<z.ZodObject<typeof storedFile>>) => ({
  id: item.id,
  name: item.name,
  type: item.type,
  createdAt: item.created_at,
  updatedAt: item.updated_at,
  isArchived: item.is_archived,
  filesize: item.filesize,
  location: item.location,
  ...(item.sha256 === undefined ? {} : { sha256: item.sha256 }),
  ...(item.scan === undefined ? {} : { scan: item.scan }),
});

export const toUserFileItem = (file: UserFile): UserFileItem => ({
  [PARTITION_KEY]: userPartition(file.userId),
  [SORT_KEY]: userFileSortKey(file.id),
  entity: 'UserFile',
  user_id: file.userId,
  ...fileAttributes(file),
});

export const fromUserFileItem = (item: unknown): UserFile => {
  const stored = USER_FILE_ITEM.parse(item);
  return { ...fileOf(stored), userId: stored.user_id };
};

export const toDealFileItem = (file: DealFile): DealFileItem => ({
  [PARTITION_KEY]: dealPartition(file.groupId, file.dealId),
  [SORT_KEY]: dealFileSortKey(file.id),
  entity: 'DealFile',
  group_id: file.groupId,
  deal_id: file.dealId,
  ...fileAttributes(file),
});

export const fromDealFileItem = (item: unknown): DealFile => {
  const stored = DEAL_FILE_ITEM.parse(item);
  return { ...fileOf(stored), groupId: stored.group_id, dealId: stored.deal_id };
};
