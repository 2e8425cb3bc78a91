import type { FileType } from '../domain/file-type.ts';

/** Why a finished direct upload was refused: the bytes broke the size rule S3 enforces. */
export type DirectUploadRejection = 'too_large' | 'empty';

/**
 * Who is turning the upload's bytes into its file: one completer at a time, for a while. A
 * completer that dies leaves a claim that lapses; `until` outlives any completer's timeout.
 */
export interface CompletionClaim {
  readonly token: string;
  readonly until: string;
}

/**
 * A direct-to-S3 upload we signed, from the moment we sign it until its bytes become a
 * UserFile (and this record goes), or are refused (and this record says why).
 *
 * | status       | on completion                          | becomes                   |
 * |--------------|----------------------------------------|---------------------------|
 * | `pending`    | claimed                                | `completing`              |
 * | `completing` | bytes copied and recorded              | gone: the UserFile stands |
 * | `completing` | bytes break the size rule              | `rejected`                |
 * | `completing` | no bytes yet, they changed, or a fault | `pending` (released)      |
 * | `completing` | its claim lapsed                       | claimed again             |
 * | `rejected`   | final: later bytes are deleted         | expires                   |
 *
 * Its owner's DELETE of the id removes a `pending` or `rejected` upload, or one whose claim
 * lapsed, bytes first; one a completer holds is left to finish.
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
  readonly status: 'pending' | 'completing' | 'rejected';
  readonly rejection?: DirectUploadRejection;
  /** Present while `completing`. */
  readonly claim?: CompletionClaim;
}
