import { newestFirst, type UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/** Every file the user owns, newest first. */
export async function listUserFiles(
  files: Pick<UserFileRepository, 'listByOwner'>,
  userId: number,
): Promise<UserFile[]> {
  return (await files.listByOwner(userId)).sort(newestFirst);
}
