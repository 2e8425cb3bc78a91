import type { ListOptions, Page } from '../domain/page.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/** The user's files newest first: every one, or a page of them. */
export async function listUserFiles(
  files: Pick<UserFileRepository, 'listByOwner'>,
  userId: number,
  options: ListOptions = {},
): Promise<Page<UserFile>> {
  return files.listByOwner(userId, options);
}
