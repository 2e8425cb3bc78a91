import type { UserFile } from './user-file.ts';

/** Where user files are recorded. Every call is scoped to one owner. */
export interface UserFileRepository {
  /** All of the owner's files, in no particular order. */
  listByOwner(userId: number): Promise<UserFile[]>;
  /** The owner's file with this id, or undefined. */
  get(userId: number, fileId: number): Promise<UserFile | undefined>;
  /** Those of these files that the owner has, in no particular order; one read. */
  getMany(userId: number, fileIds: readonly number[]): Promise<UserFile[]>;
  /** Records a new file; fails, writing nothing, when the id is already taken. */
  create(file: UserFile): Promise<void>;
}
