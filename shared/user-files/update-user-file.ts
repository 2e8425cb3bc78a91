import { NotFound } from '../domain/outcome.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/** Fields an owner may change; an absent one is left as it is. */
export interface UserFileChanges {
  readonly name?: string;
  readonly isArchived?: boolean;
}

/**
 * PATCH /api/v1/user/me/file/{file_id} (extension): the owner renames, archives or brings back
 * a file. A request that changes nothing writes nothing, so `updated_at` moves only when the
 * file did. Another user's file and an unknown id are alike: not found.
 */
export async function updateUserFile(
  ports: {
    readonly userFiles: Pick<UserFileRepository, 'get' | 'update'>;
    readonly now?: () => Date;
  },
  request: { readonly userId: number; readonly fileId: number; readonly changes: UserFileChanges },
): Promise<UserFile> {
  const { userId, fileId, changes } = request;
  const file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) throw new NotFound();
  const name = changes.name !== undefined && changes.name !== file.name ? changes.name : undefined;
  const isArchived =
    changes.isArchived !== undefined && changes.isArchived !== file.isArchived
      ? changes.isArchived
      : undefined;
  if (name === undefined && isArchived === undefined) return file;
  const updated = await ports.userFiles.update(userId, fileId, {
    ...(name === undefined ? {} : { name }),
    ...(isArchived === undefined ? {} : { isArchived }),
    updatedAt: (ports.now?.() ?? new Date()).toISOString(),
  });
  // Deleted since it was read.
  if (updated === undefined) throw new NotFound();
  return updated;
}
