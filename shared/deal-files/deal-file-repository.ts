import type { AccessEntry } from '../access-trail/access-entry.ts';
import type { FileType } from '../domain/file-type.ts';
import type { ListOptions, Page } from '../domain/page.ts';
import type { DealRef, Role } from '../groups/group.ts';
import type { DealFile } from './deal-file.ts';

/** What a caller may do in a deal, and the file asked about, read together. */
export interface DealFileAccess {
  /** The caller's role, or undefined unless they are a member and the deal is in the group. */
  readonly role: Role | undefined;
  /** The file, when one was asked for and the deal holds it. */
  readonly file: DealFile | undefined;
}

export interface DealFileRepository {
  /** One strongly consistent read of the membership, the deal and (when given) the file. */
  access(userId: number, deal: DealRef, fileId?: number): Promise<DealFileAccess>;
  /** The deal's files newest first (ids break ties): all of them, or one page. */
  listByDeal(deal: DealRef, options?: ListOptions): Promise<Page<DealFile>>;
  /** The file, read strongly consistent; undefined when the deal does not hold it. */
  get(deal: DealRef, fileId: number): Promise<DealFile | undefined>;
  /**
   * Sets the file's type in one write that holds only while the caller is an editor of the
   * group, the deal is in it and the file exists: it never creates or resurrects a file, and
   * never lands for someone whose role has just gone. False when any of that failed. Its
   * access-trail entry is written in the same transaction, or neither is.
   */
  updateType(
    editorId: number,
    deal: DealRef,
    fileId: number,
    change: { readonly type: FileType | null; readonly updatedAt: string },
    entry: AccessEntry,
  ): Promise<boolean>;
  /** Deletes the record on the same conditions as `updateType`, with its entry; false when any failed. */
  delete(editorId: number, deal: DealRef, fileId: number, entry: AccessEntry): Promise<boolean>;
  /**
   * Records a file only while its deal exists, with its entry (`deal_file.add`) in the same
   * transaction; `deal-missing` otherwise. No entry when a delete's undo puts a record back.
   * An id already taken is our fault, not the caller's, and throws.
   */
  create(file: DealFile, entry?: AccessEntry): Promise<'created' | 'deal-missing'>;
}
