import type { FileRecord } from '../domain/file-record.ts';

/** A file attached to a deal; members of the deal's group see it, editors change it. */
export interface DealFile extends FileRecord {
  readonly groupId: number;
  readonly dealId: number;
}
