import type { AccessAction, Requester } from '../access-trail/access-entry.ts';
import { type RefusalPorts, refusedAfterRecording } from '../access-trail/record-refusals.ts';
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
  const refusal = refusalOf(access, needs, fileWanted);
  if (refusal !== undefined) throw refusal;
}

/** The refusal `requireRole` raises, or undefined when the caller may go on. */
function refusalOf(
  access: DealFileAccess,
  needs: 'member' | 'editor',
  fileWanted: boolean,
): NotFound | AccessDenied | undefined {
  if (access.role === undefined || (fileWanted && access.file === undefined)) {
    return new NotFound();
  }
  if (needs === 'editor' && access.role !== 'editor') return new AccessDenied(EDITORS_ONLY);
  return undefined;
}

const ATTEMPTS = 3;

/** A change of a deal file, by whom, and the action its trail entry records. */
export interface DealFileChange {
  readonly requester: Requester;
  readonly deal: DealRef;
  readonly fileId: number;
}

/**
 * Reads the caller's access and the file, and hands the file to `change`, whose write holds
 * only while that access does. When the write finds things changed since the read (a role
 * taken away, the file deleted), `change` answers undefined and the request is judged again
 * on a fresh read: the caller gets the refusal that is now true. A refusal is recorded in the
 * deal's trail (bounded) under `action` before it is raised.
 */
export async function withEditorAccess<T>(
  ports: RefusalPorts & { readonly dealFiles: Pick<DealFileRepository, 'access'> },
  request: DealFileChange & { readonly action: AccessAction },
  change: (file: DealFile) => Promise<T | undefined>,
): Promise<T> {
  const { requester, deal, fileId, action } = request;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const access = await ports.dealFiles.access(requester.userId, deal, fileId);
    const refusal = refusalOf(access, 'editor', true);
    if (refusal !== undefined) {
      throw await refusedAfterRecording(ports, requester, refusal, [
        { action, groupId: deal.groupId, dealId: deal.dealId, fileId },
      ]);
    }
    const result = await change(access.file as DealFile);
    if (result !== undefined) return result;
  }
  throw new Conflict('The file kept changing while this request ran; try again');
}
