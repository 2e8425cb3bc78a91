import type { BlobStore, BlobVersions } from '../blobs/blob-store.ts';
import { versionsOfKey } from '../blobs/object-versions.ts';
import { NotFound } from '../domain/outcome.ts';
import { logger } from '../logger.ts';
import { CompletionInProgress, newClaim } from './complete-direct-upload.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

/**
 * The owner gives up a direct upload that has not become a file. It takes the upload first,
 * with a claim as a completer does, so no completion can record it while its bytes go; an
 * upload a completer holds is left to finish, untouched (`CompletionInProgress`): a retry
 * then deletes the file it became. Then its bytes go, every version (the form's, and a copy
 * a failed completion may have left), then its record under the claim, with its reservation.
 * When the bytes or the record will not go, the claim is given back and the caller gets the
 * error: a retry finishes it. A refused upload has no completer left to fear: bytes, then record.
 */
export async function cancelDirectUpload(
  ports: {
    readonly directUploads: Pick<DirectUploadRepository, 'find' | 'claim' | 'release' | 'cancel'>;
    readonly blobs: BlobVersions & Pick<BlobStore, 'userFileKey' | 'directUploadKey'>;
    readonly now?: () => Date;
  },
  userId: number,
  fileId: number,
): Promise<void> {
  const upload = await ports.directUploads.find(userId, fileId);
  if (upload === undefined) throw new NotFound();
  const now = ports.now?.() ?? new Date();
  const claim = upload.status === 'rejected' ? undefined : newClaim(now);
  if (claim !== undefined && !(await ports.directUploads.claim(userId, fileId, claim, now))) {
    throw new CompletionInProgress();
  }
  let cancelled: boolean;
  try {
    for (const key of [
      ports.blobs.directUploadKey(userId, fileId),
      ports.blobs.userFileKey(userId, fileId),
    ]) {
      await ports.blobs.deleteVersions(await versionsOfKey(ports.blobs, key));
    }
    cancelled = await ports.directUploads.cancel(upload, claim?.token);
  } catch (error) {
    // Given back on any failure, so a retry need not wait for the claim to lapse; the release
    // is held to our token, so it cannot free an upload a completer took over.
    if (claim !== undefined) {
      await ports.directUploads.release(userId, fileId, claim.token).catch((cause: unknown) => {
        logger.warn("Could not release a cancel's claim; it lapses", { fileId, cause });
      });
    }
    throw error;
  }
  // Our claim lapsed and a completer took the upload over: a retry deletes what it made.
  if (!cancelled) throw new CompletionInProgress();
}
