import { createHash } from 'node:crypto';
import type { BlobStore, BlobVersions } from '../blobs/blob-store.ts';
import { deleteEveryVersion } from '../blobs/object-versions.ts';
import type { IdAllocator } from '../domain/file-record.ts';
import { readWithRetries } from '../domain/read-with-retries.ts';
import { logger } from '../logger.ts';
import { AccountErased } from '../domain/outcome.ts';
import { newFileScan } from '../domain/file-scan.ts';
import type { FileType } from '../domain/file-type.ts';
import { assertRoom, type RoomPorts } from '../usage/room.ts';
import { oneFile, QuotaExceeded } from '../usage/usage.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

export interface UploadPorts extends RoomPorts {
  readonly fileIds: IdAllocator;
  readonly blobs: Pick<BlobStore, 'put' | 'delete' | 'locationOf' | 'userFileKey'> & BlobVersions;
  readonly userFiles: Pick<UserFileRepository, 'create' | 'get'>;
  /** Whether the stage scans stored files (absent: it does not): a new file then waits for its verdict. */
  readonly scanning?: boolean;
  readonly now?: () => Date;
}

export interface NewUserFile {
  readonly userId: number;
  readonly name: string;
  readonly type: FileType;
  readonly content: Uint8Array;
  readonly contentType: string;
}

/**
 * Deletes the bytes of an upload that will have no record. Refused ones (an erased user's, or
 * over the quota) go with every version: nothing of a refusal is kept, and no erasure pass
 * will look for them again. A fault's leave a noncurrent version for the bucket's lifecycle,
 * which undoes our own faults.
 */
const deleteQuietly = async (ports: Pick<UploadPorts, 'blobs'>, key: string, cause: unknown) => {
  const refused = cause instanceof AccountErased || cause instanceof QuotaExceeded;
  const deleting = refused ? deleteEveryVersion(ports.blobs, key) : ports.blobs.delete(key);
  await deleting.catch((cleanupError: unknown) => {
    // Left for the reconcile command: an object under users/ with no record.
    logger.error('Could not delete the object of a failed upload', { key, cause, cleanupError });
  });
};

/** The very record this upload wrote: the SDK's retry resends the same item. */
const sameFile = (a: UserFile, b: UserFile): boolean =>
  a.createdAt === b.createdAt && a.name === b.name && a.filesize === b.filesize;

/**
 * Records bytes already stored under the file's key. A record that cannot be written takes
 * the bytes with it, so neither is ever left alone. A write can land and lose its answer (the
 * SDK's retry then finds the key taken): a read decides. Our record there means the upload
 * is done; none means the bytes go; a read that fails too leaves them for reconcile, as bytes
 * without a record are safer than a record without bytes.
 */
async function recordUserFile(
  ports: Pick<UploadPorts, 'blobs' | 'userFiles' | 'scanning' | 'now' | 'limits'>,
  upload: Omit<NewUserFile, 'content' | 'contentType'> & {
    id: number;
    size: number;
    sha256: string;
  },
): Promise<UserFile> {
  const key = ports.blobs.userFileKey(upload.userId, upload.id);
  const file: UserFile = {
    id: upload.id,
    userId: upload.userId,
    name: upload.name,
    type: upload.type,
    createdAt: (ports.now?.() ?? new Date()).toISOString(),
    updatedAt: null,
    isArchived: false,
    filesize: upload.size,
    location: ports.blobs.locationOf(key),
    sha256: upload.sha256,
    ...newFileScan(ports.scanning === true),
  };
  try {
    await ports.userFiles.create(file, ports.limits);
  } catch (error) {
    const record = await readWithRetries(() => ports.userFiles.get(file.userId, file.id)).then(
      (found) => (found === undefined ? 'none' : sameFile(found, file) ? 'ours' : 'other'),
      () => 'unknown' as const,
    );
    if (record === 'ours') return file;
    // A record of another upload under this id would be the allocator's fault; its key holds
    // our bytes now, but deleting them would leave that record with none.
    if (record === 'none') await deleteQuietly(ports, key, error);
    else logger.error('Could not record an uploaded file', { key, record, cause: error });
    throw error;
  }
  return file;
}

/**
 * Stores the bytes, then the record: never a record for bytes that failed to store. A full
 * account is refused before any byte is stored; the record's own transaction holds the limits
 * again, and bytes it refuses go. The SHA-256 is worked out once over the bytes the form
 * held (on Lambda the whole body arrives in the event), sent with them so S3 checks what it
 * received, and recorded.
 */
export async function uploadUserFile(ports: UploadPorts, upload: NewUserFile): Promise<UserFile> {
  const size = upload.content.byteLength;
  await assertRoom(ports, upload.userId, oneFile(size));
  const id = await ports.fileIds.next();
  const sha256 = createHash('sha256').update(upload.content).digest('base64');
  await ports.blobs.put(ports.blobs.userFileKey(upload.userId, id), upload.content, {
    contentType: upload.contentType,
    sha256,
  });
  return recordUserFile(ports, { ...upload, id, size, sha256 });
}
