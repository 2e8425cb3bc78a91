import type { FileRecord } from '../data/file-record.ts';

/** A file a user uploaded to their own area. */
export interface UserFile extends FileRecord {
  readonly userId: number;
}

/** Newest first; ids break ties, since two uploads can share a millisecond. */
export function newestFirst(a: UserFile, b: UserFile): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return b.id - a.id;
}
