import type { BlobStore, UploadSigner } from '../blobs/blob-store.ts';
import type { IdAllocator } from '../ids/id-allocator.ts';
import type { FileType } from '../domain/file-type.ts';
import { MAX_UPLOAD_BYTES } from '../user-files/upload-limits.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

/** How long a signed upload form works. 50 MiB needs 7 minutes at 1 Mbit/s. */
const UPLOAD_FORM_SECONDS = 15 * 60;

export interface DirectUploadRequest {
  readonly userId: number;
  readonly name: string;
  readonly type: FileType;
  readonly filesize: number;
  readonly contentType: string;
}

export interface DirectUploadTicket {
  readonly id: number;
  readonly key: string;
  readonly url: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly expiresAt: string;
  readonly maxFilesize: number;
}

/**
 * S3 metadata travels as HTTP headers: printable ASCII stays as it is, anything else is
 * RFC 2047 encoded, the form S3 itself uses for such values.
 */
export function metadataValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text)
    ? text
    : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/**
 * Reserves the file's id, records the pending upload, and signs a POST form for the upload's
 * own key (never the file's: see `completeDirectUpload`), which S3 accepts only for 1 byte
 * to the limit and only with our metadata.
 */
export async function startDirectUpload(
  ports: {
    readonly fileIds: IdAllocator;
    readonly directUploads: Pick<DirectUploadRepository, 'start'>;
    readonly blobs: UploadSigner & Pick<BlobStore, 'directUploadKey'>;
    readonly now?: () => Date;
  },
  request: DirectUploadRequest,
): Promise<DirectUploadTicket> {
  const now = ports.now?.() ?? new Date();
  const id = await ports.fileIds.next();
  const key = ports.blobs.directUploadKey(request.userId, id);
  const expiresAt = new Date(now.getTime() + UPLOAD_FORM_SECONDS * 1000).toISOString();
  await ports.directUploads.start({
    id,
    userId: request.userId,
    name: request.name,
    type: request.type,
    contentType: request.contentType,
    declaredSize: request.filesize,
    createdAt: now.toISOString(),
    expiresAt,
    status: 'pending',
  });
  const form = await ports.blobs.signUpload(key, {
    maxBytes: MAX_UPLOAD_BYTES,
    contentType: request.contentType,
    metadata: {
      name: metadataValue(request.name),
      type: request.type,
      owner: String(request.userId),
    },
    expiresInSeconds: UPLOAD_FORM_SECONDS,
  });
  return { id, key, ...form, expiresAt, maxFilesize: MAX_UPLOAD_BYTES };
}
