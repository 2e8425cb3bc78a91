import type { UserFile } from '../user-files/user-file.ts';
import type { DirectUpload, DirectUploadRejection } from './direct-upload.ts';

/** Pending direct uploads, kept in the owner's partition beside the files they become. */
export interface DirectUploadRepository {
  start(upload: DirectUpload): Promise<void>;
  find(userId: number, fileId: number): Promise<DirectUpload | undefined>;
  /** Marks a pending upload refused; false when it was no longer pending. */
  reject(userId: number, fileId: number, reason: DirectUploadRejection): Promise<boolean>;
  /**
   * Records the file and ends its pending upload in one transaction: `completed`, or
   * `conflict` when someone else completed or refused it first (nothing is written then).
   */
  complete(file: UserFile): Promise<'completed' | 'conflict'>;
}
