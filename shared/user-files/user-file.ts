import type { FileType } from '../schemas/file-type.ts';

/** A file a user uploaded to their own area. */
export interface UserFile {
  readonly id: number;
  readonly userId: number;
  readonly name: string;
  readonly type: FileType | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly isArchived: boolean;
  readonly filesize: number;
  readonly location: string | null;
}

/** Newest first; ids break ties, since two uploads can share a millisecond. */
export function newestFirst(a: UserFile, b: UserFile): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return b.id - a.id;
}
