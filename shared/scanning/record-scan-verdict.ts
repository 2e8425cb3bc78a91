import type { BlobStore } from '../blobs/blob-store.ts';
import type { ScanResult } from '../domain/file-scan.ts';
import type { FileScans, FileRef } from './file-scans.ts';

/** GuardDuty's verdict on one object, as its scan-result event says it. */
export interface ScanVerdict {
  readonly objectKey: string;
  readonly result: ScanResult;
  /** When the scan ended (the event's time): later verdicts win, whatever order they come in. */
  readonly at: string;
}

/**
 * The file's record was not written yet when its bytes were scanned (bytes go first, the
 * record second): thrown so that the event is delivered again, by when it usually is.
 */
export class VerdictBeforeRecord extends Error {
  override name = 'VerdictBeforeRecord';

  constructor(key: string) {
    super(`No file is recorded yet for the scanned object ${key}`);
  }
}

export type VerdictOutcome =
  | { readonly kind: 'recorded'; readonly file: FileRef }
  | { readonly kind: 'stale'; readonly file: FileRef }
  /** Its file was deleted (or never recorded) and its bytes are gone: nothing to hold. */
  | { readonly kind: 'gone'; readonly file: FileRef }
  | { readonly kind: 'not-ours' };

/**
 * Records a verdict on the file its object backs. Events come at least once and in any
 * order: one no newer than the file's own scan changes nothing, so a repeat or an overtaken
 * event is harmless. With no record, the bucket decides: bytes still there are a file not
 * recorded yet (`VerdictBeforeRecord`, delivered again); bytes gone are a file deleted while
 * it was scanned, or an upload that failed, and the verdict has nothing left to hold.
 */
export async function recordScanVerdict(
  ports: { readonly scans: FileScans; readonly objects: Pick<BlobStore, 'listed'> },
  verdict: ScanVerdict,
): Promise<VerdictOutcome> {
  const file = ports.scans.fileOf(verdict.objectKey);
  if (file === undefined) return { kind: 'not-ours' };
  const outcome = await ports.scans.setScan(file, {
    status: 'scanned',
    result: verdict.result,
    // Times compare as text, so every one is kept in one form: EventBridge's has no
    // milliseconds, a release's has.
    at: new Date(verdict.at).toISOString(),
  });
  if (outcome !== 'no-record') return { kind: outcome, file };
  if ((await ports.objects.listed(verdict.objectKey)) === undefined) return { kind: 'gone', file };
  throw new VerdictBeforeRecord(verdict.objectKey);
}
