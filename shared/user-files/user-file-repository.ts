import type { AccessEntry } from '../access-trail/access-entry.ts';
import type { ListOptions, Page } from '../domain/page.ts';
import type { StorageLimits } from '../usage/usage.ts';
import type { UserFile } from './user-file.ts';

/** Where user files are recorded. Every call is scoped to one owner. */
export interface UserFileRepository {
  /** The owner's files newest first (ids break ties): all of them, or one page. */
  listByOwner(userId: number, options?: ListOptions): Promise<Page<UserFile>>;
  /** The owner's file with this id, or undefined. */
  get(userId: number, fileId: number): Promise<UserFile | undefined>;
  /** Those of these files that the owner has, in no particular order; one read. */
  getMany(userId: number, fileIds: readonly number[]): Promise<UserFile[]>;
  /**
   * Records a new file and counts it in the owner's usage, within `limits` when given (a
   * restored record takes back what it held, and is not held to them). Fails, writing
   * nothing, when the id is already taken, with QuotaExceeded over the limits, or with
   * AccountErased when the owner was erased.
   */
  create(file: UserFile, limits?: StorageLimits): Promise<void>;
  /**
   * Sets the given fields of the owner's file, with the change's access-trail entries in the
   * same transaction; false when there is no such file (nothing written).
   */
  update(
    userId: number,
    fileId: number,
    change: UserFileChange,
    entries: readonly AccessEntry[],
  ): Promise<boolean>;
  /**
   * Removes the file's record and takes it out of the owner's usage in one transaction, with
   * its access-trail entry; false when there was no record to remove (nothing written).
   */
  delete(file: UserFile, entry: AccessEntry): Promise<boolean>;
}

/** What an owner may change of a file, with the time of the change. */
export interface UserFileChange {
  readonly name?: string;
  readonly isArchived?: boolean;
  readonly updatedAt: string;
}
