import type { FileType } from '../schemas/file-type.ts';
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
  listByDeal(deal: DealRef): Promise<DealFile[]>;
  /**
   * Sets the file's type, only if the file still exists: never creates or resurrects one.
   * Undefined when it did not exist.
   */
  updateType(
    deal: DealRef,
    fileId: number,
    change: { readonly type: FileType | null; readonly updatedAt: string },
  ): Promise<DealFile | undefined>;
  /** Deletes the record; undefined when there was none. */
  delete(deal: DealRef, fileId: number): Promise<DealFile | undefined>;
  /** Records a file only while its deal exists and the id is unused; false otherwise. */
  create(file: DealFile): Promise<boolean>;
}
