import type { FileRecord } from '../domain/file-record.ts';

/** A file a user uploaded to their own area. */
export interface UserFile extends FileRecord {
  readonly userId: number;
}
