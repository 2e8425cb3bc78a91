import { NotFound } from '../domain/outcome.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/** The owner's file with this id; anyone else's id is simply not found. */
export async function findUserFile(
  ports: { readonly userFiles: Pick<UserFileRepository, 'get'> },
  userId: number,
  fileId: number,
): Promise<UserFile> {
  const file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) throw new NotFound();
  return file;
}
