import { randomUUID } from 'node:crypto';
import {
  BlobChangedError,
  BlobNotFoundError,
  type BlobStore,
  type BlobVersions,
  type CopiedBlob,
  type StoredBlob,
  type StoredVersion,
} from '../blobs/blob-store.ts';
import { deleteEveryVersion } from '../blobs/object-versions.ts';
import { newFileScan } from '../domain/file-scan.ts';
import { readWithRetries } from '../domain/read-with-retries.ts';
import { Conflict, NotFound, RuleBroken } from '../domain/outcome.ts';
import { logger } from '../logger.ts';
import { MAX_UPLOAD_BYTES, tooLargeMessage } from '../user-files/upload-limits.ts';
import type { UserFile } from '../user-files/user-file.ts';
import type { UserFileRepository } from '../user-files/user-file-repository.ts';
import {
  completableUntil,
  type CompletionClaim,
  type DirectUpload,
  type DirectUploadRejection,
} from './direct-upload.ts';
import type { DirectUploadRepository } from './direct-upload-repository.ts';

export interface CompletionPorts {
  readonly directUploads: DirectUploadRepository;
  readonly userFiles: Pick<UserFileRepository, 'get'>;
  /** Whether the stage scans stored files (absent: it does not): a new file then waits for its verdict. */
  readonly scanning?: boolean;
  readonly blobs: Pick<
    BlobStore,
    | 'head'
    | 'listed'
    | 'copy'
    | 'delete'
    | 'digest'
    | 'locationOf'
    | 'directUploadKey'
    | 'userFileKey'
  > &
    BlobVersions;
  readonly now?: () => Date;
  readonly newToken?: () => string;
  /** Waits between looks at an upload another completer holds (tests shorten them). */
  readonly waitsMs?: readonly number[];
}

/**
 * How long a completion claim holds: longer than any completer's timeout (the complete
 * route's 10 s, the finalizer's 30 s), so a claim lapses only when its holder is gone.
 */
const COMPLETION_CLAIM_SECONDS = 60;

/** A new claim on an upload from `now`, lasting longer than whoever holds it can run. */
export const newClaim = (now: Date, token: string = randomUUID()): CompletionClaim => ({
  token,
  until: new Date(now.getTime() + COMPLETION_CLAIM_SECONDS * 1000).toISOString(),
});

/** About 3 s in all: a completion under way takes well under one. */
const BUSY_WAITS_MS = [100, 200, 400, 800, 1600];

/** Another completer holds the upload: a retry once it is done (or its claim lapsed) settles. */
export class CompletionInProgress extends Conflict {
  constructor() {
    super('The upload is being completed; try again');
  }
}

/**
 * The file a direct upload became. Every completer gets the same file; only the one whose own
 * write recorded it is told `recordedNow`, so that completions are counted once.
 */
export interface Completion {
  readonly file: UserFile;
  readonly recordedNow: boolean;
}

/**
 * The upload's bytes break its rules. Every completer is refused the same; only the one whose
 * own write refused the upload is told `refusedNow`, so that refusals are counted once.
 */
export class UploadRefused extends RuleBroken {
  readonly refusedNow: boolean;

  constructor(
    upload: DirectUpload,
    reason: DirectUploadRejection | undefined,
    refusedNow: boolean,
  ) {
    switch (reason) {
      case 'empty':
        super('file-not-empty', 'The uploaded file is empty');
        break;
      case 'larger_than_declared':
        super(
          'file-size-limit',
          `The uploaded file is larger than its declared filesize of ${String(upload.declaredSize)} bytes`,
        );
        break;
      case 'digest_mismatch':
        super(
          'file-digest',
          `The uploaded file's SHA-256 is not the declared sha256 ${upload.sha256 ?? ''}`,
        );
        break;
      default:
        super('file-size-limit', tooLargeMessage());
    }
    this.refusedNow = refusedNow;
  }
}

/**
 * What the stored bytes' size breaks, if anything: the rules the upload's form holds S3 to
 * (1 byte to the declared size, which is at most the limit; a form signed before quotas took
 * up to the limit whatever was declared).
 */
function sizeRuleBroken(size: number, upload: DirectUpload): DirectUploadRejection | undefined {
  if (size === 0) return 'empty';
  if (size > MAX_UPLOAD_BYTES) return 'too_large';
  return upload.reserved && size > upload.declaredSize ? 'larger_than_declared' : undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deletes bytes no record will ever name; a failure leaves them to the bucket's lifecycle. */
async function deleteUnrecorded(
  ports: CompletionPorts,
  key: string,
  why: string,
  size: number,
): Promise<void> {
  try {
    await ports.blobs.delete(key);
    logger.info('Direct upload bytes discarded', { key, why, size });
  } catch (error) {
    logger.error('Could not discard direct upload bytes', { key, why, error });
  }
}

/**
 * Discards what a form's key holds. Only bytes that were there are a discard worth an INFO
 * line: a completer that lost a race to another finds the key already emptied.
 */
async function discard(ports: CompletionPorts, key: string, why: string): Promise<void> {
  let there: StoredBlob | undefined;
  try {
    there = await ports.blobs.head(key);
  } catch (error) {
    logger.error('Could not discard direct upload bytes', { key, why, error });
    return;
  }
  if (there === undefined) {
    logger.debug('No direct upload bytes left to discard', { key, why });
    return;
  }
  await deleteUnrecorded(ports, key, why, there.size);
}

/**
 * Removes the form's copy of bytes that are recorded (they live on under the file's key): the
 * end of every completion, nothing a person needs to hear of.
 */
async function removeRecordedSource(ports: CompletionPorts, key: string): Promise<void> {
  try {
    await ports.blobs.delete(key);
    logger.debug('Direct upload source removed after recording', { key });
  } catch (error) {
    logger.error('Could not remove the source of a recorded upload', { key, error });
  }
}

/**
 * Once the file is recorded, what is left under the form's key: nothing (the usual case), the
 * recorded bytes themselves (their completer has yet to remove them), or bytes the form sent
 * since, which no record will name: only those are discarded as such. The recorded copy is
 * seen through the bucket's listing, not read: until its malware scan clears it, the bucket
 * lets no one read it.
 */
async function sweepAfterRecording(
  ports: CompletionPorts,
  userId: number,
  fileId: number,
): Promise<void> {
  const staged = ports.blobs.directUploadKey(userId, fileId);
  let left: StoredBlob | undefined;
  let recorded: StoredBlob | undefined;
  try {
    left = await ports.blobs.head(staged);
    if (left === undefined) return;
    recorded = await ports.blobs.listed(ports.blobs.userFileKey(userId, fileId));
  } catch (error) {
    logger.error('Could not discard direct upload bytes', { key: staged, error });
    return;
  }
  // A copy keeps its source's ETag (the bucket's SSE-S3 makes it the content's MD5); were it
  // not so, recorded bytes would only be reported discarded, the side that hides nothing.
  if (recorded !== undefined && recorded.etag === left.etag) {
    await removeRecordedSource(ports, staged);
  } else {
    await deleteUnrecorded(ports, staged, 'sent after the file was recorded', left.size);
  }
}

/**
 * Turns a finished direct upload into its UserFile, exactly once, whoever calls first: the
 * finalizer on S3's ObjectCreated event or the client's complete call. Later calls get the
 * same record.
 *
 * The signed form writes to the upload's own key, and stays valid until it expires, so
 * completion copies the bytes to the file's key, the one key no form can reach: once
 * recorded, a file's bytes never change. One completer at a time holds a claim on the
 * upload; it sizes, hashes and copies one version of the form's object, the one HEAD named,
 * so the record always describes the bytes stored: a form may write again meanwhile, and
 * bytes of the same MD5 (the ETag) are other bytes all the same. The copy's own SHA-256 is
 * held to the digest too.
 */
export async function completeDirectUpload(
  ports: CompletionPorts,
  userId: number,
  fileId: number,
): Promise<Completion> {
  const waits = ports.waitsMs ?? BUSY_WAITS_MS;
  for (let attempt = 0; ; attempt++) {
    const recorded = await ports.userFiles.get(userId, fileId);
    if (recorded !== undefined) return { file: recorded, recordedNow: false };
    const upload = await ports.directUploads.find(userId, fileId);
    if (upload === undefined) {
      // Someone may have completed it between the two reads.
      const completed = await ports.userFiles.get(userId, fileId);
      if (completed !== undefined) return { file: completed, recordedNow: false };
      throw new NotFound();
    }
    if (upload.status === 'rejected') {
      // A reused form may have sent bytes since: they are never recorded.
      await discard(ports, ports.blobs.directUploadKey(userId, fileId), 'the upload was refused');
      throw new UploadRefused(upload, upload.rejection, false);
    }
    const now = ports.now?.() ?? new Date();
    // Its reservation is given back now (`UsageLedger.releaseExpired`): it is as gone.
    if (completableUntil(upload) < now.toISOString()) throw new NotFound();
    const claim = newClaim(now, (ports.newToken ?? randomUUID)());
    if (await ports.directUploads.claim(userId, fileId, claim, now)) {
      return completeClaimed(ports, upload, claim.token);
    }
    const wait = waits[attempt];
    if (wait === undefined) throw new CompletionInProgress();
    await sleep(wait);
  }
}

/** Completion under our claim; the claim goes back on any outcome that records nothing. */
async function completeClaimed(
  ports: CompletionPorts,
  upload: DirectUpload,
  token: string,
): Promise<Completion> {
  const { userId, id: fileId } = upload;
  const staged = ports.blobs.directUploadKey(userId, fileId);
  const key = ports.blobs.userFileKey(userId, fileId);
  const release = () =>
    ports.directUploads.release(userId, fileId, token).catch((error: unknown) => {
      // The claim lapses on its own.
      logger.warn('Could not release a completion claim', { key: staged, error });
    });
  try {
    // The version read, hashed and copied, and the size the record states.
    const blob = await ports.blobs.head(staged);
    if (blob === undefined) throw new Conflict('The file has not been uploaded yet');
    // Defence in depth: the signed form's `content-length-range` and checksum hold S3 to the
    // rules, but the key takes any write the bucket's policy allows (another signer, an
    // operator, a form signed before); the rules are ours, so a record never breaks them.
    const sizeBroken = sizeRuleBroken(blob.size, upload);
    // The digest of the very bytes the copy takes: the same version.
    const sha256 = sizeBroken === undefined ? await digestExactly(ports, staged, blob) : '';
    const broken =
      sizeBroken ??
      (upload.sha256 !== undefined && upload.sha256 !== sha256 ? 'digest_mismatch' : undefined);
    if (broken !== undefined) {
      // Refuse first, then delete: a crash in between leaves bytes the reconcile command
      // finds, never a record of bytes that are gone. The refusal gives the reservation back.
      const refusedNow = await ports.directUploads.reject(upload, broken, token);
      if (refusedNow) {
        logger.warn('Direct upload refused', { key: staged, size: blob.size, reason: broken });
        await discardEveryVersion(ports, staged, `the bytes were refused: ${broken}`);
      }
      throw new UploadRefused(upload, broken, refusedNow);
    }
    await copyExactly(ports, staged, key, blob, sha256);
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
      sha256,
      ...newFileScan(ports.scanning === true),
    };
    const outcome = await recordCompletion(ports, file, upload, token);
    if (outcome === 'erased') {
      // The erasure took the upload, and may have listed the bucket before the copy landed:
      // its bytes go here, every version, and the upload is as gone as any it found.
      for (const erased of [key, staged]) {
        await deleteEveryVersion(ports.blobs, erased).catch((error: unknown) => {
          logger.error("Could not delete an erased user's upload", { key: erased, error });
        });
      }
      throw new NotFound();
    }
    if (outcome === 'conflict') {
      // Our claim lapsed and another completer took over; it writes the file's bytes now.
      const settled = await ports.userFiles.get(userId, fileId);
      if (settled !== undefined) return { file: settled, recordedNow: false };
      throw new CompletionInProgress();
    }
    await removeRecordedSource(ports, staged);
    return { file, recordedNow: true };
  } catch (error) {
    await release();
    throw error;
  }
}

/** The upload's bytes changed under the completion: a retry completes what is there then. */
const changed = () =>
  new Conflict('The file changed while it was being completed; complete it again');

/**
 * The SHA-256 of the version read, and no other: a store that no longer has it (it keeps
 * none but the current one) answers a change.
 */
async function digestExactly(
  ports: CompletionPorts,
  staged: string,
  read: StoredVersion,
): Promise<string> {
  try {
    return await ports.blobs.digest(staged, { versionId: read.versionId });
  } catch (error) {
    if (error instanceof BlobChangedError || error instanceof BlobNotFoundError) throw changed();
    throw error;
  }
}

/**
 * Discards refused bytes with every version the bucket keeps of them: nothing of a refusal
 * is kept. A failure leaves them to the bucket's lifecycle for `uploads/`.
 */
async function discardEveryVersion(ports: CompletionPorts, key: string, why: string) {
  try {
    await deleteEveryVersion(ports.blobs, key);
    logger.info('Direct upload bytes discarded', { key, why });
  } catch (error) {
    logger.error('Could not discard direct upload bytes', { key, why, error });
  }
}

/**
 * Copies the version that was read (sized and hashed), and no other: a form may write again
 * meanwhile. The copy's SHA-256, as the store worked it out, must be the digest the record
 * will state; a copy that is not goes, every version, and nothing is recorded.
 */
async function copyExactly(
  ports: CompletionPorts,
  staged: string,
  key: string,
  read: StoredVersion,
  sha256: string,
): Promise<void> {
  let copied: CopiedBlob;
  try {
    copied = await ports.blobs.copy(staged, key, { versionId: read.versionId });
  } catch (error) {
    if (error instanceof BlobChangedError || error instanceof BlobNotFoundError) throw changed();
    throw error;
  }
  if (copied.sha256 === undefined || copied.sha256 === sha256) return;
  logger.error('A direct upload copy has another SHA-256 than the version read', { key });
  await deleteEveryVersion(ports.blobs, key).catch((error: unknown) => {
    logger.error('Could not delete the copy of an unrecorded upload', { key, error });
  });
  throw changed();
}

/**
 * The record and the end of the upload, in one transaction. A transaction can land and lose
 * its answer, or land late: the claim decides. Given back, it fences the transaction out
 * (its condition can no longer hold), so the copied bytes go and no record will name them.
 * Not given back, the transaction landed (or another completer took over): a read tells.
 */
async function recordCompletion(
  ports: CompletionPorts,
  file: UserFile,
  upload: DirectUpload,
  token: string,
): Promise<'completed' | 'conflict' | 'erased'> {
  try {
    return await ports.directUploads.complete(file, upload, token);
  } catch (error) {
    const released = await ports.directUploads
      .release(file.userId, file.id, token)
      .catch(() => undefined);
    if (released === true) {
      await ports.blobs
        .delete(ports.blobs.userFileKey(file.userId, file.id))
        .catch((cleanup: unknown) => {
          logger.error('Could not delete the copy of an unrecorded upload', { error, cleanup });
        });
      throw error;
    }
    if (released === false) {
      const record = await readWithRetries(() => ports.userFiles.get(file.userId, file.id));
      if (record !== undefined)
        return record.createdAt === file.createdAt ? 'completed' : 'conflict';
    }
    // Neither told: the copy and the staged bytes stay for a retry, which completes it.
    throw error;
  }
}

/**
 * What to do with bytes that arrived under a direct upload's key (S3's ObjectCreated event):
 * complete the upload when it still waits for them, else delete them. A signed form works
 * until it expires, so bytes may come after the file was recorded, refused, or abandoned;
 * none of those may reach a record.
 */
export async function judgeUploadedBytes(
  ports: CompletionPorts,
  userId: number,
  fileId: number,
): Promise<Completion | 'discarded'> {
  const staged = ports.blobs.directUploadKey(userId, fileId);
  const upload = await ports.directUploads.find(userId, fileId);
  if (upload?.status === 'rejected') {
    await discard(ports, staged, 'the upload was refused');
    return 'discarded';
  }
  if (upload === undefined) {
    // Recorded (the complete call may have been first), or never started, cancelled, expired.
    if ((await ports.userFiles.get(userId, fileId)) === undefined) {
      await discard(ports, staged, 'no upload waits for them');
    } else {
      await sweepAfterRecording(ports, userId, fileId);
    }
    return 'discarded';
  }
  let completion: Completion;
  try {
    completion = await completeDirectUpload(ports, userId, fileId);
  } catch (error) {
    // Cancelled (or erased, or expired) while we waited on its holder: no upload waits now.
    if (!(error instanceof NotFound)) throw error;
    await discard(ports, staged, 'no upload waits for them');
    return 'discarded';
  }
  // Bytes sent while another completer held the upload came too late for its record.
  await sweepAfterRecording(ports, userId, fileId);
  return completion;
}
