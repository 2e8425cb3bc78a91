import {
  type EntryFacts,
  type EntryStamp,
  newAccessEntry,
  OPERATOR,
} from '../access-trail/access-entry.ts';
import type { BlobVersions } from '../blobs/blob-store.ts';
import { deleteEveryVersion } from '../blobs/object-versions.ts';
import { type ScanStanding, scanStandingOf } from '../domain/file-scan.ts';
import { Conflict, NotFound } from '../domain/outcome.ts';
import { logger } from '../logger.ts';
import type { FileScans, FileRef, ScannedFileRecord, ScannedObjects } from './file-scans.ts';

/**
 * What an operator does with the files the malware scan holds: list them, release one by an
 * explicit decision, send some to be scanned again, delete one. Every change is logged with
 * who made it and why.
 */
export interface HeldFilePorts extends EntryStamp {
  readonly fileScans: FileScans;
  readonly scannedObjects: ScannedObjects;
  readonly blobs: BlobVersions;
}

/** Who decided, and why: both kept with a release and logged with every change. */
export interface OperatorDecision {
  readonly by: string;
  readonly reason: string;
}

export interface HeldFile extends ScannedFileRecord {
  readonly standing: Exclude<ScanStanding, 'clean' | 'released'>;
}

const isHeld = (record: ScannedFileRecord): record is HeldFile => {
  const standing = scanStandingOf(record.scan);
  return standing !== 'clean' && standing !== 'released';
};

/** Every file the scan holds, oldest first: found infected, not judged, pending, never scanned. */
export async function listHeldFiles(ports: Pick<HeldFilePorts, 'fileScans'>): Promise<HeldFile[]> {
  const held: HeldFile[] = [];
  for await (const page of ports.fileScans.unclearedFiles()) {
    for (const record of page) {
      if (isHeld(record))
        held.push({ ...record, standing: scanStandingOf(record.scan) as HeldFile['standing'] });
    }
  }
  return held.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

async function heldFile(ports: Pick<HeldFilePorts, 'fileScans'>, file: FileRef): Promise<HeldFile> {
  const record = await ports.fileScans.get(file);
  if (record === undefined) throw new NotFound('no such file');
  if (!isHeld(record))
    throw new Conflict(`the file is not held: its scan is ${scanStandingOf(record.scan)}`);
  return { ...record, standing: scanStandingOf(record.scan) as HeldFile['standing'] };
}

/**
 * An operator lets a held file be downloaded after all. The bucket's tag comes first: a
 * release recorded but not tagged would give links the bucket refuses; tagged but not
 * recorded, the file stays held and the release can be run again.
 */
export async function releaseHeldFile(
  ports: HeldFilePorts,
  file: FileRef,
  decision: OperatorDecision,
): Promise<HeldFile> {
  const held = await heldFile(ports, file);
  // GuardDuty writes an object's tags whole when its scan ends, and would take the release
  // tag with it; its verdict would replace the release on the record too.
  if (held.standing === 'pending') {
    throw new Conflict('the file is being scanned: decide once its verdict is in');
  }
  const key = ports.scannedObjects.keyOf(file);
  await ports.scannedObjects.release(key);
  const at = (ports.now?.() ?? new Date()).toISOString();
  const outcome = await ports.fileScans.setScan(file, { status: 'released', at, ...decision });
  if (outcome === 'no-record') throw new NotFound('no such file');
  logger.warn('Held file released by an operator', {
    key,
    was: held.standing,
    outcome,
    ...decision,
  });
  return held;
}

/**
 * Sends files to be scanned anew: those stored before scanning began, or whose scan failed.
 * Each is marked pending first, so the verdict its new copy brings is the one that stays; a
 * copy that fails puts the file's scan back (pending for good would say "try again shortly"
 * forever), and the others go on.
 */
export async function rescanFiles(
  ports: HeldFilePorts,
  files: readonly FileRef[],
  decision: OperatorDecision,
): Promise<{ readonly rescanned: number; readonly failed: readonly string[] }> {
  let rescanned = 0;
  const failed: string[] = [];
  for (const file of files) {
    const key = ports.scannedObjects.keyOf(file);
    const before = await ports.fileScans.get(file);
    if (before === undefined || !(await ports.fileScans.markPending(file))) continue;
    try {
      await ports.scannedObjects.rescan(key);
    } catch (error) {
      logger.error('Could not send a file to be scanned again', { key, error });
      await ports.fileScans.unmarkPending(file, before.scan);
      failed.push(key);
      continue;
    }
    logger.info('File sent to be scanned again', { key, ...decision });
    rescanned += 1;
  }
  return { rescanned, failed };
}

/** The operator's delete of a file, as its trail records it: the owner's, or the deal's. */
const deletionOf = (file: FileRef): EntryFacts =>
  file.kind === 'user-file'
    ? { action: 'user_file.delete', outcome: 'allowed', fileId: file.fileId, ownerId: file.userId }
    : {
        action: 'deal_file.delete',
        outcome: 'allowed',
        groupId: file.groupId,
        dealId: file.dealId,
        fileId: file.fileId,
      };

/**
 * Deletes a held file for good: its record, with its entry in the access trail (the owner's
 * `user_file.delete` or the deal's `deal_file.delete`, by the operator) in one transaction,
 * then every version of its bytes (an infected file's old versions must not wait out the
 * bucket's lifecycle). Bytes that will not go are reported with their key, for the
 * reconcile command.
 */
export async function deleteHeldFile(
  ports: HeldFilePorts,
  file: FileRef,
  decision: OperatorDecision,
): Promise<HeldFile> {
  const held = await heldFile(ports, file);
  const key = ports.scannedObjects.keyOf(file);
  await ports.fileScans.deleteRecord(file, newAccessEntry(deletionOf(file), OPERATOR, ports));
  logger.warn('Held file deleted by an operator', { key, was: held.standing, ...decision });
  try {
    await deleteEveryVersion(ports.blobs, key);
  } catch (error) {
    throw new Error(`the record is gone, but the bytes at ${key} could not all be deleted`, {
      cause: error,
    });
  }
  return held;
}
