import {
  type AccessAction,
  type EntryStamp,
  newAccessEntry,
  type Requester,
} from '../access-trail/access-entry.ts';
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
 *
 * The change lands with its entries in the owner's trail: `user_file.rename` for a new name,
 * `user_file.archive` or `user_file.unarchive` for a file put in or brought back from the
 * archive, both when both.
 */
export async function updateUserFile(
  ports: EntryStamp & { readonly userFiles: Pick<UserFileRepository, 'get' | 'update'> },
  request: {
    readonly requester: Requester;
    readonly fileId: number;
    readonly changes: UserFileChanges;
  },
): Promise<UserFile> {
  const { requester, fileId, changes } = request;
  const { userId } = requester;
  const file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) throw new NotFound();
  const name = changes.name !== undefined && changes.name !== file.name ? changes.name : undefined;
  const isArchived =
    changes.isArchived !== undefined && changes.isArchived !== file.isArchived
      ? changes.isArchived
      : undefined;
  if (name === undefined && isArchived === undefined) return file;
  const now = ports.now?.() ?? new Date();
  const change = {
    ...(name === undefined ? {} : { name }),
    ...(isArchived === undefined ? {} : { isArchived }),
    updatedAt: now.toISOString(),
  };
  const actions: AccessAction[] = [];
  if (name !== undefined) actions.push('user_file.rename');
  if (isArchived !== undefined)
    actions.push(isArchived ? 'user_file.archive' : 'user_file.unarchive');
  const entries = actions.map((action) =>
    newAccessEntry({ action, outcome: 'allowed', fileId }, requester, { ...ports, now: () => now }),
  );
  // False: deleted since it was read.
  if (!(await ports.userFiles.update(userId, fileId, change, entries))) throw new NotFound();
  return { ...file, ...change };
}
