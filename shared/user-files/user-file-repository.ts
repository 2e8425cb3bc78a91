import type { UserFile } from './user-file.ts';

/** Where user files are recorded. Every call is scoped to one owner. */
export interface UserFileRepository {
  /** All of the owner's files, in no particular order. */
  listByOwner(userId: number): Promise<UserFile[]>;
}
