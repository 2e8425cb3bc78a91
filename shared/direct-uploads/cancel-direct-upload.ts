import type { BlobStore, BlobVersions } from '../blobs/blob-store.ts';
import { versionsOfKey } from '../blobs/object-versions.ts';
import { NotFound } from '../domain/outcome.ts';
import { CompletionInProgress } from './complete-direct-upload.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

/**
 * The owner gives up a direct upload that has not become a file. Its bytes go first, every
 * version (the form's, and a copy a failed completion may have left), then its record, so no
 * form, finalizer or complete call can make it a file any more. When the bytes will not go,
 * the record stays and the caller gets the error: a retry finishes it. An upload a completer
 * holds right now is left to finish: a retry then deletes the file it became.
 */
export async function cancelDirectUpload(
  ports: {
    readonly directUploads: Pick<DirectUploadRepository, 'find' | 'cancel'>;
    readonly blobs: BlobVersions & Pick<BlobStore, 'userFileKey' | 'directUploadKey'>;
    readonly now?: () => Date;
  },
  userId: number,
  fileId: number,
): Promise<void> {
  const upload = await ports.directUploads.find(userId, fileId);
  if (upload === undefined) throw new NotFound();
  const now = ports.now?.() ?? new Date();
  const held = upload.status === 'completing' && (upload.claim?.until ?? '') >= now.toISOString();
  if (held) throw new CompletionInProgress();
  const keys = [
    ports.blobs.directUploadKey(userId, fileId),
    ports.blobs.userFileKey(userId, fileId),
  ];
  for (const key of keys) {
    await ports.blobs.deleteVersions(await versionsOfKey(ports.blobs, key));
  }
  // A completer may have claimed it since it was read.
  if (!(await ports.directUploads.cancel(upload, now))) throw new CompletionInProgress();
}
