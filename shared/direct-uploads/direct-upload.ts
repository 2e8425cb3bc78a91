import type { FileType } from '../data/file-type.ts';

/** Why a finished direct upload was refused: the bytes broke the size rule S3 enforces. */
export type DirectUploadRejection = 'too_large' | 'empty';

/**
 * A direct-to-S3 upload we signed, from the moment we sign it until its bytes become a
 * UserFile (and this record goes), or are refused (and this record says why).
 */
export interface DirectUpload {
  /** The id the UserFile will have. */
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly type: FileType;
  readonly contentType: string;
  /** The size the client announced; the stored object's own size is what gets recorded. */
  readonly declaredSize: number;
  readonly createdAt: string;
  /** When the signed form stops working. */
  readonly expiresAt: string;
  readonly status: 'pending' | 'rejected';
  readonly rejection?: DirectUploadRejection;
}
