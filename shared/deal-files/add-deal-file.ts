import { createHash } from 'node:crypto';
import { type EntryStamp, newAccessEntry, OPERATOR } from '../access-trail/access-entry.ts';
import { BlobNotFoundError, type BlobStore } from '../blobs/blob-store.ts';
import { Conflict, NotFound, RuleBroken } from '../domain/outcome.ts';
import type { DealRef } from '../groups/group.ts';
import type { GroupRepository } from '../groups/group-repository.ts';
import type { IdAllocator } from '../domain/file-record.ts';
import { logger } from '../logger.ts';
import { newFileScan, scanStandingOf } from '../domain/file-scan.ts';
import type { FileType } from '../domain/file-type.ts';
import { MAX_UPLOAD_BYTES } from '../user-files/upload-limits.ts';
import type { UserFileRepository } from '../user-files/user-file-repository.ts';
import type { DealFile } from './deal-file.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

export interface AddDealFilePorts extends EntryStamp {
  readonly fileIds: IdAllocator;
  readonly blobs: Pick<
    BlobStore,
    'put' | 'copy' | 'delete' | 'locationOf' | 'dealFileKey' | 'userFileKey'
  >;
  readonly groups: Pick<GroupRepository, 'getDeal'>;
  readonly dealFiles: Pick<DealFileRepository, 'create' | 'get'>;
  readonly userFiles: Pick<UserFileRepository, 'get'>;
  /** Whether the stage scans stored files (absent: it does not): a new file then waits for its verdict. */
  readonly scanning?: boolean;
}

/** Where a deal file's bytes come from: the operator's disk, or a user's upload. */
export type DealFileSource =
  | { readonly kind: 'bytes'; readonly content: Uint8Array; readonly contentType: string }
  | { readonly kind: 'user-file'; readonly userId: number; readonly fileId: number };

export interface NewDealFile {
  readonly deal: DealRef;
  readonly source: DealFileSource;
  /** Required for bytes; a user file's own name when absent. */
  readonly name?: string;
  /** A user file's own type when absent; null for bytes. */
  readonly type?: FileType | null;
}

/**
 * The operator attaches a file to a deal. Bytes first (written, or copied in S3 from the
 * user's file), then the record, which is written only while the deal exists, with its
 * `deal_file.add` entry (by the operator; from which user file, whose); a record that cannot
 * be written takes the bytes with it. A copy carries the user file's recorded SHA-256
 * on, so it is held to it: the store's own checksum of the copy must be that digest.
 */
export async function addDealFile(
  ports: AddDealFilePorts,
  request: NewDealFile,
): Promise<DealFile> {
  const { deal, source } = request;
  if ((await ports.groups.getDeal(deal.groupId, deal.dealId)) === undefined) {
    throw new NotFound(`deal ${deal.dealId} does not exist in group ${deal.groupId}`);
  }
  const described = await describe(ports, request);
  const id = await ports.fileIds.next();
  const key = ports.blobs.dealFileKey(deal.groupId, deal.dealId, id);
  try {
    if (source.kind === 'bytes') {
      await ports.blobs.put(key, source.content, {
        contentType: source.contentType,
        ...(described.sha256 === undefined ? {} : { sha256: described.sha256 }),
      });
    } else {
      const copied = await ports.blobs.copy(
        ports.blobs.userFileKey(source.userId, source.fileId),
        key,
      );
      const carried = described.sha256;
      if (copied.sha256 !== undefined && carried !== undefined && copied.sha256 !== carried) {
        throw new Conflict(
          `user ${source.userId}'s file ${source.fileId} has other bytes in the bucket than its recorded SHA-256 names; nothing was attached`,
        );
      }
    }
  } catch (error) {
    // A put or copy cut off midway may still have stored the object.
    await removeBytes(ports, key, error);
    if (error instanceof BlobNotFoundError && source.kind === 'user-file') {
      throw new Conflict(
        `user ${source.userId}'s file ${source.fileId} has a record but no bytes in the bucket`,
      );
    }
    throw error;
  }
  const file: DealFile = {
    groupId: deal.groupId,
    dealId: deal.dealId,
    id,
    ...described,
    createdAt: (ports.now?.() ?? new Date()).toISOString(),
    updatedAt: null,
    isArchived: false,
    location: ports.blobs.locationOf(key),
    ...newFileScan(ports.scanning === true),
  };
  const entry = newAccessEntry(
    {
      action: 'deal_file.add',
      outcome: 'allowed',
      groupId: deal.groupId,
      dealId: deal.dealId,
      fileId: id,
      ...(source.kind === 'user-file'
        ? { sourceFileId: source.fileId, sourceUserId: source.userId }
        : {}),
    },
    OPERATOR,
    ports,
  );
  let outcome: 'created' | 'deal-missing';
  try {
    outcome = await ports.dealFiles.create(file, entry);
  } catch (error) {
    // The write may have landed before its answer was lost: the bytes go only once a read
    // shows no record points at them (a read that fails too leaves them, to be safe).
    if ((await ports.dealFiles.get(deal, id).catch(() => file)) !== undefined) throw error;
    await removeBytes(ports, key, error);
    throw error;
  }
  if (outcome === 'deal-missing') {
    const refusal = new NotFound(`deal ${deal.dealId} does not exist in group ${deal.groupId}`);
    await removeBytes(ports, key, refusal);
    throw refusal;
  }
  return file;
}

async function describe(
  ports: AddDealFilePorts,
  request: NewDealFile,
): Promise<Pick<DealFile, 'name' | 'type' | 'filesize' | 'sha256'>> {
  const { source } = request;
  if (source.kind === 'bytes') {
    if (request.name === undefined) throw new RuleBroken('file-named', 'a name is required');
    const size = source.content.byteLength;
    if (size === 0) throw new RuleBroken('file-not-empty', 'the file is empty');
    if (size > MAX_UPLOAD_BYTES) {
      throw new RuleBroken(
        'file-size-limit',
        `the file is ${size} bytes; the limit is ${MAX_UPLOAD_BYTES}`,
      );
    }
    return {
      name: request.name,
      type: request.type ?? null,
      filesize: size,
      sha256: createHash('sha256').update(source.content).digest('base64'),
    };
  }
  const userFile = await ports.userFiles.get(source.userId, source.fileId);
  if (userFile === undefined) {
    throw new NotFound(`user ${source.userId} has no file ${source.fileId}`);
  }
  const standing = scanStandingOf(userFile.scan);
  if (ports.scanning === true && standing !== 'clean' && standing !== 'released') {
    // Its bytes are held (the bucket would refuse to read them for the copy anyway): a deal
    // room gets no file its owner may not download.
    throw new Conflict(
      `user ${source.userId}'s file ${source.fileId} is held by the malware scan (${standing}); attach it once it is clean or released`,
    );
  }
  return {
    name: request.name ?? userFile.name,
    type: request.type === undefined ? userFile.type : request.type,
    filesize: userFile.filesize,
    // A copy within the bucket: the bytes, and so their digest, are the user file's.
    ...(userFile.sha256 === undefined ? {} : { sha256: userFile.sha256 }),
  };
}

/**
 * Takes back the bytes of a file that will not be recorded. When even that fails, the error
 * says where they are: the command did change something, and the reconcile command will find
 * the object.
 */
async function removeBytes(ports: Pick<AddDealFilePorts, 'blobs'>, key: string, cause: unknown) {
  try {
    await ports.blobs.delete(key);
  } catch (cleanupError) {
    logger.error('Could not delete the object of a deal file not recorded', {
      key,
      cause,
      cleanupError,
    });
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new Error(`${reason}; and its bytes, already stored at ${key}, could not be removed`, {
      cause,
    });
  }
}
