import type { FileType } from '../domain/file-type.ts';

/**
 * Why a finished direct upload was refused: its bytes broke the size rule its form holds S3
 * to (none, more than the limit or than declared), or their SHA-256 is not the one declared.
 */
export type DirectUploadRejection =
  'too_large' | 'empty' | 'larger_than_declared' | 'digest_mismatch';

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
 * | `rejected`   | final: later bytes are deleted         | forgotten (see below)     |
 *
 * Its owner's DELETE of the id claims a `pending` upload (or one whose claim lapsed) as a
 * completer does, deletes its bytes, then removes it under that claim; a `rejected` one goes
 * bytes first; one a completer holds is left to finish, untouched.
 *
 * A refusal gives the reservation back, so no limit bounds how many a user makes: only their
 * last few are kept, each until it could no longer have been completed (every completer of it
 * is refused alike meanwhile); an older one is forgotten, as gone as a cancelled upload.
 *
 * Until it is completed, refused, cancelled or can no longer be completed, it holds a
 * reservation of one file and its declared size against its owner's limits.
 */
export interface DirectUpload {
  /** The id the UserFile will have. */
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly type: FileType;
  readonly contentType: string;
  /**
   * The size the client announced: the most its form lets S3 take, and what its reservation
   * holds. The stored object's own size is what gets recorded.
   */
  readonly declaredSize: number;
  /** The SHA-256 the client declared (base64 of the 32 bytes): the bytes must have it. */
  readonly sha256?: string;
  /**
   * Whether it holds a reservation against its owner's limits, as every upload started since
   * quotas does; one started before holds none, so ending it gives none back.
   */
  readonly reserved: boolean;
  readonly createdAt: string;
  /** When the signed form stops working. */
  readonly expiresAt: string;
  readonly status: 'pending' | 'completing' | 'rejected';
  readonly rejection?: DirectUploadRejection;
  /** Present while `completing`. */
  readonly claim?: CompletionClaim;
}

/**
 * How long after its form expires a pending upload can still be completed (bytes that came in
 * time, a completion that failed): a day. Then its reservation is given back.
 */
const COMPLETABLE_AFTER_FORM_MS = 24 * 60 * 60 * 1000;

/** When the upload stops being completable (ISO 8601): a day after its form expires. */
export const completableUntil = (upload: Pick<DirectUpload, 'expiresAt'>): string =>
  new Date(Date.parse(upload.expiresAt) + COMPLETABLE_AFTER_FORM_MS).toISOString();
