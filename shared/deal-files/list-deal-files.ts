import type { ListOptions, Page } from '../domain/page.ts';
import type { DealRef } from '../groups/group.ts';
import type { DealFile } from './deal-file.ts';
import { requireRole } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/** GET .../deal/{deal_id}/file (extension): a deal's files, for any member, newest first. */
export async function listDealFiles(
  files: Pick<DealFileRepository, 'access' | 'listByDeal'>,
  userId: number,
  deal: DealRef,
  options: ListOptions = {},
): Promise<Page<DealFile>> {
  requireRole(await files.access(userId, deal), 'member', false);
  return files.listByDeal(deal, options);
}
