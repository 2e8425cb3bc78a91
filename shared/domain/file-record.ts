import type { FileScan } from './file-scan.ts';
import type { FileType } from './file-type.ts';

/** What every stored file has, a user's or a deal's. */
export interface FileRecord {
  readonly id: number;
  readonly name: string;
  readonly type: FileType | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly isArchived: boolean;
  readonly filesize: number;
  readonly location: string | null;
  /**
   * The SHA-256 of its bytes (base64 of the 32 bytes), worked out as they were stored; none
   * on files stored before digests were kept.
   */
  readonly sha256?: string;
  /** Where its bytes stand with the malware scanner; none if stored before scanning began. */
  readonly scan?: FileScan;
}

/** Hands out integer ids that are unique across every container and never reused. */
export interface IdAllocator {
  next(): Promise<number>;
}
