import type { DealRef } from '../groups/group.ts';
import type { DealFile } from './deal-file.ts';
import { requireRole } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/**
 * GET .../deal/{deal_id}/file/{file_id} (extension): one deal file, for any member. A
 * non-member, a deal outside the group and a missing file get the same NotFound.
 */
export async function findDealFile(
  files: Pick<DealFileRepository, 'access'>,
  request: { readonly userId: number; readonly deal: DealRef; readonly fileId: number },
): Promise<DealFile> {
  const access = await files.access(request.userId, request.deal, request.fileId);
  requireRole(access, 'member', true);
  return access.file as DealFile;
}
