import { type EntryStamp, newAccessEntry, type Requester } from '../access-trail/access-entry.ts';
import type { BlobStore, BlobVersion, BlobVersions } from '../blobs/blob-store.ts';
import { versionsOfKey } from '../blobs/object-versions.ts';
import { NotFound } from '../domain/outcome.ts';
import { logger } from '../logger.ts';
import type { StorageLimits } from '../usage/usage.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

export interface DeleteUserFilePorts extends EntryStamp {
  readonly userFiles: Pick<UserFileRepository, 'get' | 'delete' | 'create'>;
  readonly blobs: BlobVersions & Pick<BlobStore, 'userFileKey'>;
  /**
   * Gives up the id's direct upload while it waits to become this file (the handler passes
   * `cancelDirectUpload`); `NotFound` when none waits. A port, as direct uploads build on
   * user files and not the other way.
   */
  readonly cancelUpload: (userId: number, fileId: number) => Promise<void>;
  /** The owner's limits, which a record put back is held to as any new one. */
  readonly limits: StorageLimits;
}

/**
 * DELETE /api/v1/user/me/file/{file_id} (extension): the owner removes a file for good, with
 * every version the bucket keeps of its bytes; or, for an id whose direct upload still waits,
 * cancels that upload (`cancelUpload`).
 *
 * No record ever names bytes that are gone. Old versions go first, while the record still
 * names the current one; then the record; then the current bytes. When those will not go, the
 * record comes back and the caller gets the error, so a retry finishes the delete. Only when
 * the record cannot come back either are the bytes left to the reconcile command.
 *
 * The record's delete lands with its `user_file.delete` entry in the owner's trail; a record
 * that comes back keeps it (the trail shows the delete made, then undone by our fault). A
 * cancelled upload was never a file, and records nothing.
 */
export async function deleteUserFile(
  ports: DeleteUserFilePorts,
  requester: Requester,
  fileId: number,
): Promise<void> {
  const { userId } = requester;
  let file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) {
    try {
      await ports.cancelUpload(userId, fileId);
      return;
    } catch (error) {
      // Its upload may have become this file since the first read: the file goes.
      if (!(error instanceof NotFound)) throw error;
      file = await ports.userFiles.get(userId, fileId);
      if (file === undefined) throw error;
    }
  }
  const key = ports.blobs.userFileKey(userId, fileId);
  const versions = await versionsOfKey(ports.blobs, key);
  const current: BlobVersion[] = versions.filter((version) => version.isLatest);
  await ports.blobs.deleteVersions(versions.filter((version) => !version.isLatest));
  const entry = newAccessEntry(
    { action: 'user_file.delete', outcome: 'allowed', fileId },
    requester,
    ports,
  );
  const deleted = (await ports.userFiles.delete(file, entry)) ? file : undefined;
  try {
    // Nothing came back when the record was gone already: a concurrent delete took it, or
    // ours landed and lost its answer to a retry. Either way its bytes go now.
    await ports.blobs.deleteVersions(current);
  } catch (error) {
    // A delete can land and lose its answer to the retries: then the file is gone, as asked.
    // When S3 cannot tell either, the bytes are taken to be there, as they mostly are.
    if ((await stillStored(ports.blobs, key, current)) === false) return;
    await restore(ports, deleted, key, error);
    throw error;
  }
}

/** Whether these versions are still there: true, false, or undefined when S3 cannot tell. */
async function stillStored(
  blobs: BlobVersions,
  key: string,
  versions: readonly BlobVersion[],
): Promise<boolean | undefined> {
  try {
    const now = await versionsOfKey(blobs, key);
    return now.some((version) => versions.some((v) => v.versionId === version.versionId));
  } catch {
    return undefined;
  }
}

/**
 * Puts the record back over bytes that did not go. When it cannot (or which delete took it is
 * not known), the bytes are left to the reconcile command: a record must never outlive them.
 */
async function restore(
  ports: DeleteUserFilePorts,
  deleted: UserFile | undefined,
  key: string,
  error: unknown,
): Promise<void> {
  if (deleted === undefined) {
    logger.error('A deleted file kept its bytes', { key, error });
    return;
  }
  // Held to the limits as any new record: room the delete freed may be taken meanwhile, and
  // then the bytes are left to reconcile rather than the limit overshot.
  await ports.userFiles.create(deleted, ports.limits).catch((restoreError: unknown) => {
    logger.error('A deleted file kept its bytes: its record could not come back', {
      key,
      error,
      restoreError,
    });
  });
}
