import type { BlobStore } from '../blobs/blob-store.ts';
import { userFileObjectKey } from '../data/keys.ts';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  PayloadTooLargeError,
} from '../http/http-errors.ts';
import { logger } from '../logger.ts';
import { MAX_UPLOAD_BYTES, tooLargeMessage } from '../user-files/upload-limits.ts';
import type { UserFile } from '../user-files/user-file.ts';
import type { UserFileRepository } from '../user-files/user-file-repository.ts';
import type { DirectUpload, DirectUploadRejection } from './direct-upload.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

export interface CompletionPorts {
  readonly uploads: DirectUploadRepository;
  readonly files: Pick<UserFileRepository, 'get'>;
  readonly blobs: Pick<BlobStore, 'head' | 'delete' | 'locationOf'>;
  readonly now?: () => Date;
}

function refusal(reason: DirectUploadRejection | undefined): Error {
  return reason === 'empty'
    ? new BadRequestError('The uploaded file is empty')
    : new PayloadTooLargeError(tooLargeMessage());
}

/** What the stored bytes break, if anything: the rule S3's policy holds uploads to. */
function ruleBroken(size: number): DirectUploadRejection | undefined {
  if (size === 0) return 'empty';
  return size > MAX_UPLOAD_BYTES ? 'too_large' : undefined;
}

/** The recorded file, or why there is none, after someone else acted first. */
async function settled(ports: CompletionPorts, userId: number, fileId: number): Promise<UserFile> {
  const file = await ports.files.get(userId, fileId);
  if (file !== undefined) return file;
  const upload = await ports.uploads.find(userId, fileId);
  if (upload?.status === 'rejected') throw refusal(upload.rejection);
  throw new NotFoundError();
}

/**
 * Turns a finished direct upload into its UserFile, exactly once, whoever calls first: the
 * finalizer on S3's ObjectCreated event or the client's complete call. Later calls get the
 * same record. S3 holds uploads to the signed size range; this re-checks the stored size,
 * since s3rver does not, and an object that breaks it is deleted and never recorded.
 */
export async function completeDirectUpload(
  ports: CompletionPorts,
  userId: number,
  fileId: number,
): Promise<UserFile> {
  const recorded = await ports.files.get(userId, fileId);
  if (recorded !== undefined) return recorded;
  const upload: DirectUpload | undefined = await ports.uploads.find(userId, fileId);
  if (upload === undefined) return settled(ports, userId, fileId);
  if (upload.status === 'rejected') throw refusal(upload.rejection);

  const key = userFileObjectKey(userId, fileId);
  const blob = await ports.blobs.head(key);
  if (blob === undefined) throw new ConflictError('The file has not been uploaded yet');
  const broken = ruleBroken(blob.size);
  if (broken !== undefined) {
    // Refuse first, then delete: a crash in between leaves an object the reconcile command
    // finds, never a record of bytes that are gone.
    if (!(await ports.uploads.reject(userId, fileId, broken))) {
      return settled(ports, userId, fileId);
    }
    logger.warn('Direct upload refused', { key, size: blob.size, reason: broken });
    await ports.blobs.delete(key);
    throw refusal(broken);
  }

  const file: UserFile = {
    id: fileId,
    userId,
    name: upload.name,
    type: upload.type,
    createdAt: (ports.now?.() ?? new Date()).toISOString(),
    updatedAt: null,
    isArchived: false,
    filesize: blob.size,
    location: ports.blobs.locationOf(key),
  };
  const outcome = await ports.uploads.complete(file);
  return outcome === 'completed' ? file : settled(ports, userId, fileId);
}
