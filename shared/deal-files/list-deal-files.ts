import type { DealRef } from '../groups/group.ts';
import type { DealFile } from './deal-file.ts';
import { requireRole } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/** GET .../deal/{deal_id}/file (extension): a deal's files, for any member, newest first. */
export async function listDealFiles(
  files: Pick<DealFileRepository, 'access' | 'listByDeal'>,
  userId: number,
  deal: DealRef,
): Promise<DealFile[]> {
  requireRole(await files.access(userId, deal), 'member', false);
  return newestFirst(await files.listByDeal(deal));
}

/** Newest first; ids break ties. */
export const newestFirst = (files: DealFile[]): DealFile[] =>
  files.sort((a, b) =>
    a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1,
  );
