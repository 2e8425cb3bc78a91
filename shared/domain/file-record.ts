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
  /** Where its bytes stand with the malware scanner; none if stored before scanning began. */
  readonly scan?: FileScan;
}
