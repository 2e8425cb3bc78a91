import type { AccessEntry } from '../access-trail/access-entry.ts';
import type { AccessTrail } from '../access-trail/access-trail.ts';
import type { DownloadSigner } from '../blobs/blob-store.ts';
import type { FileRecord } from '../domain/file-record.ts';
import { Conflict, FileQuarantined } from '../domain/outcome.ts';
import { type FileScan, scanStandingOf } from '../domain/file-scan.ts';

/** How long a download link works, whoever's file it serves. */
const DOWNLOAD_LINK_SECONDS = 5 * 60;

/** A scan of a file this size takes seconds: a client asked to wait this long rarely asks twice. */
const PENDING_RETRY_MS = 5_000;

/**
 * The file is held: no download until a scan or an operator clears it. A scan under way says
 * when to ask again; a hold only an operator can lift does not.
 */
class FileHeld extends Conflict {}

/** How each state that holds a file answers a download. */
const DOWNLOAD_REFUSALS = {
  pending: () =>
    new FileHeld('The file is being scanned for malware; try again shortly', PENDING_RETRY_MS),
  unscanned: () =>
    new FileHeld(
      'The file was stored before malware scanning began; it can be downloaded once it is scanned',
    ),
  THREATS_FOUND: () =>
    new FileQuarantined('Malware was found in this file; it cannot be downloaded'),
  UNSUPPORTED: () =>
    new FileHeld(
      'The file could not be scanned for malware; it is held until an operator reviews it',
    ),
  ACCESS_DENIED: () =>
    new FileHeld(
      'The file could not be scanned for malware; it is held until an operator reviews it',
    ),
  FAILED: () =>
    new FileHeld('The malware scan of this file failed; it is held until an operator reviews it'),
} as const;

/**
 * Whether the bytes may be handed out; throws the hold when not. With scanning off nothing is
 * held: the bucket holds nothing either.
 */
export function assertDownloadable(scan: FileScan | undefined, scanning: boolean): void {
  if (!scanning) return;
  const standing = scanStandingOf(scan);
  if (standing === 'clean' || standing === 'released') return;
  throw DOWNLOAD_REFUSALS[standing]();
}

/**
 * A link that downloads the file's bytes, kept under `key`, under its own name; valid five
 * minutes. Every file's download gets its link here, so none escapes the hold, nor the access
 * trail: the link is signed only once its entry is written (TrailUnavailable otherwise).
 */
export async function downloadLink(
  ports: {
    readonly blobs: DownloadSigner;
    readonly accessTrail: Pick<AccessTrail, 'record'>;
    /** Whether the stage scans stored files (absent: it does not): only a cleared file gets a link. */
    readonly scanning?: boolean;
  },
  key: string,
  file: Pick<FileRecord, 'name' | 'scan'>,
  entry: AccessEntry,
): Promise<string> {
  assertDownloadable(file.scan, ports.scanning === true);
  await ports.accessTrail.record([entry]);
  return ports.blobs.signDownload(key, {
    downloadName: file.name,
    expiresInSeconds: DOWNLOAD_LINK_SECONDS,
  });
}
