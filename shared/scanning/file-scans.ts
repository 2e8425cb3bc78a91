import type { AccessEntry } from '../access-trail/access-entry.ts';
import type { FileScan } from '../domain/file-scan.ts';

/** A stored file, a user's or a deal's, by the ids its record is found by. */
export type FileRef =
  | { readonly kind: 'user-file'; readonly userId: number; readonly fileId: number }
  | {
      readonly kind: 'deal-file';
      readonly groupId: number;
      readonly dealId: number;
      readonly fileId: number;
    };

/** A verdict or a release: a scan with its time, which orders it against others. */
export type TimedScan = Extract<FileScan, { readonly at: string }>;

/** What an operator sees of a file and its scan. */
export interface ScannedFileRecord {
  readonly file: FileRef;
  readonly name: string;
  readonly filesize: number;
  readonly createdAt: string;
  /** None when it was stored before scanning began. */
  readonly scan?: FileScan;
}

/** Where files' scans are kept: on their records. */
export interface FileScans {
  /** The file an object key holds the bytes of, or undefined for a key no file has. */
  fileOf(objectKey: string): FileRef | undefined;
  /**
   * Sets the file's scan when the record exists and holds no newer one: `stale` when it holds
   * one as new or newer (a repeat, or an event overtaken), `no-record` when there is none.
   */
  setScan(file: FileRef, scan: TimedScan): Promise<'recorded' | 'stale' | 'no-record'>;
  /** The file's record as the scan sees it, or undefined when there is none. */
  get(file: FileRef): Promise<ScannedFileRecord | undefined>;
  /** Every file the scan does not clear (held, pending or never scanned), page by page. */
  unclearedFiles(): AsyncIterable<readonly ScannedFileRecord[]>;
  /** Marks the file's scan pending again, before its bytes are sent to be scanned anew. */
  markPending(file: FileRef): Promise<boolean>;
  /** Puts back the scan a file had, while it is still pending: a rescan that could not start. */
  unmarkPending(file: FileRef, previous: FileScan | undefined): Promise<void>;
  /**
   * Removes the file's record with its access-trail entry, in one transaction: the record as
   * it was, or undefined if there was none (nothing written). TrailUnavailable when the entry
   * could not be written (nothing removed).
   */
  deleteRecord(file: FileRef, entry: AccessEntry): Promise<ScannedFileRecord | undefined>;
}

/** The bucket's side of a file's scan: the objects, their tags, a new scan. */
export interface ScannedObjects {
  /** The key of the object that holds the file's bytes. */
  keyOf(file: FileRef): string;
  /** Tags the object released, so the bucket hands it out whatever its scan said. */
  release(key: string): Promise<void>;
  /** Writes the object anew (a copy onto itself), so the scanner scans it again. */
  rescan(key: string): Promise<void>;
  /** The scanner's verdict on the object, as its tag says; undefined for none, or no object. */
  verdictOf(key: string): Promise<string | undefined>;
}
