import type { UserFile } from '../user-files/user-file.ts';
import type { CompletionClaim, DirectUpload, DirectUploadRejection } from './direct-upload.ts';

/** Pending direct uploads, kept in the owner's partition beside the files they become. */
export interface DirectUploadRepository {
  /** Records a pending upload; AccountErased, writing nothing, when the owner was erased. */
  start(upload: DirectUpload): Promise<void>;
  find(userId: number, fileId: number): Promise<DirectUpload | undefined>;
  /**
   * Takes the upload for completion: when it is pending, or its last claim lapsed before
   * `now`. False when it is rejected, gone, or someone else's claim still holds.
   */
  claim(userId: number, fileId: number, claim: CompletionClaim, now: Date): Promise<boolean>;
  /**
   * Gives a claim back (the upload is pending again): true when it was still held, so no
   * completion under it can land any more; false when it was not.
   */
  release(userId: number, fileId: number, token: string): Promise<boolean>;
  /** Marks a claimed upload refused; false when the claim was no longer held. */
  reject(
    userId: number,
    fileId: number,
    reason: DirectUploadRejection,
    token: string,
  ): Promise<boolean>;
  /**
   * Removes an upload no completer holds (pending, rejected, or its claim lapsed before
   * `now`); false when it is gone or a completer's claim still holds.
   */
  cancel(userId: number, fileId: number, now: Date): Promise<boolean>;
  /**
   * Records the file and ends its claimed upload in one transaction: `completed`, or
   * `conflict` when the claim was no longer held or the id is taken, `erased` when the owner
   * was erased (nothing is written then).
   */
  complete(file: UserFile, token: string): Promise<'completed' | 'conflict' | 'erased'>;
}
