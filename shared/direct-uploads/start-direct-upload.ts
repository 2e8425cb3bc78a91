import type { BlobStore, UploadSigner } from '../blobs/blob-store.ts';
import type { IdAllocator } from '../domain/file-record.ts';
import type { FileType } from '../domain/file-type.ts';
import { type RoomPorts, withExpiredReleased } from '../usage/room.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

/** How long a signed upload form works. 50 MiB needs 7 minutes at 1 Mbit/s. */
const UPLOAD_FORM_SECONDS = 15 * 60;

export interface DirectUploadRequest {
  readonly userId: number;
  readonly name: string;
  readonly type: FileType;
  readonly filesize: number;
  readonly contentType: string;
  /** The SHA-256 the bytes will have (base64 of the 32 bytes), if the client declares one. */
  readonly sha256?: string;
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
 * Reserves the file's id, records the pending upload with its reservation of one file and its
 * declared size (refused, with nothing written, over the owner's limits), and signs a POST
 * form for the upload's own key (never the file's: see `completeDirectUpload`). S3 accepts
 * it only for 1 byte to the declared size, only with our metadata, and, when the client
 * declared a SHA-256, only bytes that have it.
 */
export async function startDirectUpload(
  ports: RoomPorts & {
    readonly fileIds: IdAllocator;
    readonly directUploads: Pick<DirectUploadRepository, 'start'>;
    readonly blobs: UploadSigner & Pick<BlobStore, 'directUploadKey'>;
  },
  request: DirectUploadRequest,
): Promise<DirectUploadTicket> {
  const now = ports.now?.() ?? new Date();
  const id = await ports.fileIds.next();
  const key = ports.blobs.directUploadKey(request.userId, id);
  const expiresAt = new Date(now.getTime() + UPLOAD_FORM_SECONDS * 1000).toISOString();
  const upload = {
    id,
    userId: request.userId,
    name: request.name,
    type: request.type,
    contentType: request.contentType,
    declaredSize: request.filesize,
    ...(request.sha256 === undefined ? {} : { sha256: request.sha256 }),
    createdAt: now.toISOString(),
    expiresAt,
    status: 'pending',
    reserved: true,
  } as const;
  // Signed first: a form that could not be signed leaves no reservation behind for a client
  // that never learns its id. A form without its record completes nothing.
  const form = await ports.blobs.signUpload(key, {
    maxBytes: request.filesize,
    ...(request.sha256 === undefined ? {} : { sha256: request.sha256 }),
    contentType: request.contentType,
    metadata: {
      name: metadataValue(request.name),
      type: request.type,
      owner: String(request.userId),
    },
    expiresInSeconds: UPLOAD_FORM_SECONDS,
  });
  await withExpiredReleased(ports, request.userId, () =>
    ports.directUploads.start(upload, ports.limits),
  );
  return { id, key, ...form, expiresAt, maxFilesize: request.filesize };
}
