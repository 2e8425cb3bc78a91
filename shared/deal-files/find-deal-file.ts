import type { DealRef } from '../groups/group.ts';
import { AccessDenied, NotFound } from '../domain/outcome.ts';
import { type RefusalPorts, refusedAfterRecording } from '../access-trail/record-refusals.ts';
import type { DealFile } from './deal-file.ts';
import { type DealFileChange, requireRole } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/**
 * One deal file, for any member. A non-member, a deal outside the group and a missing file
 * get the same NotFound.
 */
export async function findDealFile(
  files: Pick<DealFileRepository, 'access'>,
  request: { readonly userId: number; readonly deal: DealRef; readonly fileId: number },
): Promise<DealFile> {
  const access = await files.access(request.userId, request.deal, request.fileId);
  requireRole(access, 'member', true);
  return access.file as DealFile;
}

/**
 * GET .../deal/{deal_id}/file/{file_id} (extension): one deal file's record, for any member.
 * A refusal is recorded in the deal's trail (`deal_file.read`, bounded) before it is raised;
 * a member's read of a record is not recorded: it hands out no bytes, and its fields are the
 * deal's list's.
 */
export async function readDealFile(
  ports: RefusalPorts & { readonly dealFiles: Pick<DealFileRepository, 'access'> },
  request: DealFileChange,
): Promise<DealFile> {
  const { requester, deal, fileId } = request;
  try {
    return await findDealFile(ports.dealFiles, { userId: requester.userId, deal, fileId });
  } catch (error) {
    if (error instanceof NotFound || error instanceof AccessDenied) {
      throw await refusedAfterRecording(ports, requester, error, [
        { action: 'deal_file.read', groupId: deal.groupId, dealId: deal.dealId, fileId },
      ]);
    }
    throw error;
  }
}
