import type { Requester } from '../access-trail/access-entry.ts';
import { type RefusalPorts, refusedAfterRecording } from '../access-trail/record-refusals.ts';
import { AccessDenied, NotFound } from '../domain/outcome.ts';
import type { ListOptions, Page } from '../domain/page.ts';
import type { DealRef } from '../groups/group.ts';
import type { DealFile } from './deal-file.ts';
import { requireRole } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/**
 * GET .../deal/{deal_id}/file (extension): a deal's files, for any member, newest first. A
 * refusal is recorded in the deal's trail (`deal_file.list`, bounded) before it is raised; a
 * member's listing is not recorded: it hands out no bytes.
 */
export async function listDealFiles(
  ports: RefusalPorts & { readonly dealFiles: Pick<DealFileRepository, 'access' | 'listByDeal'> },
  request: { readonly requester: Requester; readonly deal: DealRef },
  options: ListOptions = {},
): Promise<Page<DealFile>> {
  const { requester, deal } = request;
  try {
    requireRole(await ports.dealFiles.access(requester.userId, deal), 'member', false);
  } catch (error) {
    if (error instanceof NotFound || error instanceof AccessDenied) {
      throw await refusedAfterRecording(ports, requester, error, [
        { action: 'deal_file.list', groupId: deal.groupId, dealId: deal.dealId },
      ]);
    }
    throw error;
  }
  return ports.dealFiles.listByDeal(deal, options);
}
