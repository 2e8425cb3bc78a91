import { ForbiddenError, NotFoundError } from '../http/http-errors.ts';
import type { DealFileAccess } from './deal-file-repository.ts';

export const EDITORS_ONLY = 'Only editors of this group may change its deal files';

/**
 * What a caller who is no member, a deal outside the group and a missing file have in
 * common: the same 404, so nothing tells one from another. Only what a member could see
 * anyway (the file, by listing the deal) earns a viewer the 403.
 */
export function requireRole(
  access: DealFileAccess,
  needs: 'member' | 'editor',
  fileWanted: boolean,
): void {
  if (access.role === undefined || (fileWanted && access.file === undefined)) {
    throw new NotFoundError();
  }
  if (needs === 'editor' && access.role !== 'editor') throw new ForbiddenError(EDITORS_ONLY);
}
