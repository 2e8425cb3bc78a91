import type { DealRef } from '../groups/group.ts';
import { AccessDenied, Conflict, NotFound } from '../domain/outcome.ts';
import type { DealFile } from './deal-file.ts';
import type { DealFileAccess, DealFileRepository } from './deal-file-repository.ts';

const EDITORS_ONLY = 'Only editors of this group may change its deal files';

/**
 * What a caller who is no member, a deal outside the group and a missing file have in
 * common: the same NotFound, so nothing tells one from another. Only what a member could see
 * anyway (the file, by listing the deal) earns a viewer AccessDenied.
 */
export function requireRole(
  access: DealFileAccess,
  needs: 'member' | 'editor',
  fileWanted: boolean,
): void {
  if (access.role === undefined || (fileWanted && access.file === undefined)) {
    throw new NotFound();
  }
  if (needs === 'editor' && access.role !== 'editor') throw new AccessDenied(EDITORS_ONLY);
}

const ATTEMPTS = 3;

/**
 * Reads the caller's access and the file, and hands the file to `change`, whose write holds
 * only while that access does. When the write finds things changed since the read (a role
 * taken away, the file deleted), `change` answers undefined and the request is judged again
 * on a fresh read: the caller gets the refusal that is now true.
 */
export async function withEditorAccess<T>(
  files: Pick<DealFileRepository, 'access'>,
  request: { readonly userId: number; readonly deal: DealRef; readonly fileId: number },
  change: (file: DealFile) => Promise<T | undefined>,
): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const access = await files.access(request.userId, request.deal, request.fileId);
    requireRole(access, 'editor', true);
    const result = await change(access.file as DealFile);
    if (result !== undefined) return result;
  }
  throw new Conflict('The file kept changing while this request ran; try again');
}
