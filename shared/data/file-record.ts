import { type FileType, isFileType } from '../data/file-type.ts';

/** What every stored file has, a user's or a deal's. */
export interface FileRecord {
  readonly id: number;
  readonly name: string;
  readonly type: FileType | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly isArchived: boolean;
  readonly filesize: number;
  readonly location: string | null;
}

/**
 * Reads those fields off a stored item, in the contract's names. Optional fields that an item
 * lacks, or holds in another shape, read as the contract's defaults.
 */
export const fileRecordFromItem = (item: Record<string, unknown>): FileRecord => ({
  id: Number(item.id),
  name: String(item.name),
  type: isFileType(item.type) ? item.type : null,
  createdAt: String(item.created_at),
  updatedAt: typeof item.updated_at === 'string' ? item.updated_at : null,
  isArchived: item.is_archived === true,
  filesize: typeof item.filesize === 'number' ? item.filesize : 0,
  location: typeof item.location === 'string' ? item.location : null,
});
