/**
 * A typed client for the file service: openapi-fetch over the types generate-types.ts writes
 * from the service's OpenAPI document. Every route of the contract (list and upload your files,
 * notify a submission, update a deal file, get a realtime token) and the extensions a client
 * needs for files of any size: the direct upload (start, POST the signed form to S3,
 * complete), the download (its bytes checked against the SHA-256 the service recorded) and
 * your usage against your storage quota.
 *
 *   const client = new FileServiceClient('http://localhost:8000', token);
 *   const file = await client.upload('deck.pdf', { type: 'deck' }); // any size up to 50 MiB
 *   await client.notify([file.id], { fund_name: 'Acme Growth Fund III' });
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './file-service.d.ts';

export type UserFile = components['schemas']['UserFile'];
export type DealFile = components['schemas']['DealFile'];
export type FileType = components['schemas']['FileType'];
export type UserUsage = components['schemas']['UserUsage'];
type DirectUploadTicket = components['schemas']['DirectUploadTicket'];
type NotificationAccepted = components['schemas']['NotificationAccepted'];

/**
 * Multipart uploads take files up to 4.7 MB (4,700,000 bytes) on every stage; larger files
 * take the direct upload. The limit is the platform's, not the service's: Lambda takes at
 * most 6 MiB of event, and API Gateway puts the form in it base64-encoded (4 bytes for every
 * 3) beside the request's headers and token claims.
 */
export const MULTIPART_LIMIT = 4_700_000;

/** Calls of complete, a second apart, while another completion holds the upload (409). */
const COMPLETE_ATTEMPTS = 5;

/** The header that names a file's SHA-256 on its GET and on its download's 302. */
const DIGEST_HEADER = 'x-checksum-sha256';

/** A SHA-256 as the service writes one (and S3's `x-amz-checksum-sha256`): base64 of the 32
 * bytes. */
export const sha256Of = (bytes: Uint8Array): string =>
  createHash('sha256').update(bytes).digest('base64');

/** A refusal: the HTTP status and the body as sent (FastAPI's `{"detail": …}`, API Gateway's
 * `{"message": …}`, or S3's XML for the direct upload's form). */
export class FileServiceError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown, call: string) {
    super(`${call}: ${String(status)} ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.name = 'FileServiceError';
    this.status = status;
    this.body = body;
  }
}

/** A 403 over your storage quota: `detail` names the limit, what is in use and what was
 * asked (`usage()` shows where you stand). Nothing was stored. */
export class QuotaExceededError extends FileServiceError {
  readonly detail: string;

  constructor(detail: string, body: unknown, call: string) {
    super(403, body, call);
    this.name = 'QuotaExceededError';
    this.detail = detail;
  }
}

/** Downloaded bytes whose SHA-256 is not the one the service recorded: never use them. */
export class ChecksumMismatchError extends Error {
  constructor(fileId: number, recorded: string, received: string) {
    super(`download: file ${String(fileId)}: the bytes' SHA-256 is ${received}, not ${recorded}`);
    this.name = 'ChecksumMismatchError';
  }
}

/** What openapi-fetch answers: the documented success, or the refusal's body. */
interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

function dataOf<T>(call: string, { data, error, response }: Answer<T>): T {
  if (response.ok && data !== undefined) return data;
  // A 403 also answers an erased account: the detail tells the quota's refusal apart.
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (response.status === 403 && typeof detail === 'string' && detail.startsWith('Storage quota')) {
    throw new QuotaExceededError(detail, error, call);
  }
  throw new FileServiceError(response.status, error, call);
}

export class FileServiceClient {
  private readonly api: Client<paths>;

  constructor(baseUrl: string, token: string) {
    this.api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });
  }

  // The contract's routes

  /** GET /api/v1/user/me/file: every file the caller owns, newest first. */
  async listFiles(): Promise<UserFile[]> {
    return dataOf('list files', await this.api.GET('/api/v1/user/me/file'));
  }

  /** POST /api/v1/user/me/file: one multipart request, for files up to MULTIPART_LIMIT. */
  async uploadMultipart(file: File, name: string, type: FileType): Promise<UserFile> {
    const answer = await this.api.POST('/api/v1/user/me/file', {
      body: { file, name, type },
      // fetch writes the multipart body, and its content type with the boundary.
      bodySerializer: (fields) => {
        const form = new FormData();
        form.append('file', fields.file, file.name);
        form.append('name', fields.name);
        form.append('type', fields.type);
        return form;
      },
    });
    return dataOf('upload', answer);
  }

  /** POST /api/v1/user/me/file/notify: one chat message for a finished submission. */
  async notify(
    fileIds: number[],
    about: { fund_name?: string; message?: string } = {},
  ): Promise<NotificationAccepted> {
    const answer = await this.api.POST('/api/v1/user/me/file/notify', {
      body: { file_ids: fileIds, ...about },
    });
    return dataOf('notify', answer);
  }

  /** PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}: set (or clear) its type. */
  async updateDealFile(
    deal: { group_id: number; deal_id: number; file_id: number },
    type: FileType | null,
  ): Promise<DealFile> {
    const answer = await this.api.PUT('/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}', {
      params: { path: deal },
      body: { type },
    });
    return dataOf('update deal file', answer);
  }

  /** POST /api/v1/auth/get-realtime-token: a token for these rooms; none, a general one. */
  async realtimeToken(roomIds: string[] = []): Promise<string> {
    const answer = await this.api.POST('/api/v1/auth/get-realtime-token', {
      body: { room_ids: roomIds },
    });
    return dataOf('realtime token', answer).token;
  }

  // The extensions a client needs for files of any size

  /** GET /api/v1/user/me/usage: what your files and pending direct uploads hold, and your
   * limits, in files and in bytes. */
  async usage(): Promise<UserUsage> {
    return dataOf('usage', await this.api.GET('/api/v1/user/me/usage'));
  }

  /** POST /api/v1/user/me/file/upload: a signed S3 form for one file, for 15 minutes. With
   * the bytes' `sha256`, S3 and the completion refuse any other bytes. */
  async startDirectUpload(
    name: string,
    type: FileType,
    filesize: number,
    contentType: string,
    sha256?: string,
  ): Promise<DirectUploadTicket> {
    const answer = await this.api.POST('/api/v1/user/me/file/upload', {
      body: { name, type, filesize, content_type: contentType, sha256 },
    });
    return dataOf('start direct upload', answer);
  }

  /** POST the signed form to S3: every field in the order given, the file last. S3 answers
   * 204. No bearer token: the form's signature is the credential. */
  async postToStorage(ticket: DirectUploadTicket, file: File): Promise<void> {
    const form = new FormData();
    for (const [field, value] of Object.entries(ticket.fields)) form.append(field, value);
    form.append('file', file, file.name);
    const response = await fetch(ticket.url, { method: 'POST', body: form });
    if (!response.ok) throw new FileServiceError(response.status, await response.text(), 'S3');
  }

  /** POST /api/v1/user/me/file/upload/{file_id}/complete: the UserFile the upload became. */
  async completeDirectUpload(uploadId: number): Promise<UserFile> {
    const answer = await this.api.POST('/api/v1/user/me/file/upload/{file_id}/complete', {
      params: { path: { file_id: uploadId } },
    });
    return dataOf('complete direct upload', answer);
  }

  /**
   * GET /api/v1/user/me/file/{file_id}/download: its 302 names a 5-minute link, read here
   * without the bearer token, which S3 would refuse beside the link's own signature. While the
   * malware scan holds a new file the route answers 409 with Retry-After: this waits as told,
   * up to `waitMs` in all (a 409 without Retry-After waits for an operator, and a 403 means
   * malware was found: both are thrown at once). Bytes whose SHA-256 is not the one the 302
   * names throw ChecksumMismatchError (a file stored before digests were kept has none).
   */
  async download(fileId: number, waitMs = 60_000): Promise<Uint8Array> {
    const deadline = Date.now() + waitMs;
    let response: Response;
    for (;;) {
      ({ response } = await this.api.GET('/api/v1/user/me/file/{file_id}/download', {
        params: { path: { file_id: fileId } },
        redirect: 'manual',
      }));
      const retryAfter = response.headers.get('retry-after');
      if (response.status !== 409 || retryAfter === null || Date.now() >= deadline) break;
      const wait = Math.min(Number(retryAfter) * 1000, Math.max(0, deadline - Date.now()));
      await setTimeout(wait);
    }
    const link = response.headers.get('location');
    if (response.status !== 302 || link === null) {
      throw new FileServiceError(response.status, await response.text(), 'download');
    }
    const object = await fetch(link);
    if (!object.ok) throw new FileServiceError(object.status, await object.text(), 'download');
    const bytes = new Uint8Array(await object.arrayBuffer());
    const recorded = response.headers.get(DIGEST_HEADER);
    if (recorded !== null && recorded !== sha256Of(bytes)) {
      throw new ChecksumMismatchError(fileId, recorded, sha256Of(bytes));
    }
    return bytes;
  }

  // Any size

  /**
   * Upload a path's file, or bytes, of any size up to 50 MiB, and answer its UserFile:
   * multipart up to MULTIPART_LIMIT, the direct upload above it (declaring the bytes'
   * SHA-256). Over your storage quota it throws QuotaExceededError.
   */
  async upload(
    source: string | Uint8Array,
    options: { name?: string; type?: FileType; contentType?: string } = {},
  ): Promise<UserFile> {
    const bytes = typeof source === 'string' ? await readFile(source) : source;
    const filename = typeof source === 'string' ? basename(source) : (options.name ?? 'upload.bin');
    const file = new File([bytes], filename, {
      type: options.contentType ?? 'application/octet-stream',
    });
    const name = options.name ?? filename;
    const type = options.type ?? 'other';
    if (file.size <= MULTIPART_LIMIT) return this.uploadMultipart(file, name, type);
    const ticket = await this.startDirectUpload(name, type, file.size, file.type, sha256Of(bytes));
    await this.postToStorage(ticket, file);
    // S3's event completes the upload too; while it holds the upload, complete answers 409
    // "try again", and the next call answers the same file.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.completeDirectUpload(ticket.id);
      } catch (error) {
        if (!(error instanceof FileServiceError && error.status === 409)) throw error;
        if (attempt === COMPLETE_ATTEMPTS) throw error;
        await setTimeout(1000);
      }
    }
  }
}
