import type { StorageLimits } from '../usage/usage.ts';
import type { UserFile } from '../user-files/user-file.ts';
import type { CompletionClaim, DirectUpload, DirectUploadRejection } from './direct-upload.ts';

/**
 * Pending direct uploads, kept in the owner's partition beside the files they become. Each
 * write that starts or ends one changes the owner's usage in the same transaction.
 */
export interface DirectUploadRepository {
  /**
   * Records a pending upload and reserves one file and its declared size within `limits`;
   * writing nothing, QuotaExceeded when they would be exceeded, AccountErased when the owner
   * was erased.
   */
  start(upload: DirectUpload, limits: StorageLimits): Promise<void>;
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
  /**
   * Marks a claimed upload refused and gives its reservation back; false when the claim was
   * no longer held, or the owner was erased (the erasure takes the upload). Only the owner's
   * last refusals are kept: an older one is forgotten (`find` no longer finds it).
   */
  reject(upload: DirectUpload, reason: DirectUploadRejection, token: string): Promise<boolean>;
  /**
   * Removes an upload its owner gave up, giving back its reservation if it held one: a
   * rejected one, or one taken with the claim `token`. False when it is gone, or the claim is
   * no longer held.
   */
  cancel(upload: DirectUpload, token: string | undefined): Promise<boolean>;
  /**
   * Records the file and ends its claimed upload in one transaction, the reservation settled
   * to the file's size: `completed`, or `conflict` when the claim was no longer held or the
   * id is taken, `erased` when the owner was erased (nothing is written then).
   */
  complete(
    file: UserFile,
    upload: DirectUpload,
    token: string,
  ): Promise<'completed' | 'conflict' | 'erased'>;
}
