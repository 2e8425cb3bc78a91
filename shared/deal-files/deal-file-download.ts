import { newAccessEntry } from '../access-trail/access-entry.ts';
import type { AccessTrail } from '../access-trail/access-trail.ts';
import { type RefusalPorts, refusedAfterRecording } from '../access-trail/record-refusals.ts';
import type { BlobStore, DownloadSigner } from '../blobs/blob-store.ts';
import { AccessDenied, NotFound } from '../domain/outcome.ts';
import { downloadLink } from '../scanning/download-hold.ts';
import type { DealFile } from './deal-file.ts';
import type { DealFileChange } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';
import { findDealFile } from './find-deal-file.ts';

/**
 * GET …/deal/{deal_id}/file/{file_id}/download (extension): a link to a deal file's bytes for
 * any member, as a user file's download gives its owner, with the file it serves. Membership
 * is judged first: a non-member, a deal outside the group and a missing file get the same
 * NotFound, so only a member learns that the malware scan holds a file (FileHeld,
 * FileQuarantined).
 *
 * The link is signed only once its `deal_file.download` entry is in the deal's trail
 * (TrailUnavailable otherwise); a refusal (404, or 403 for an infected file) is recorded
 * there too, bounded, before it is raised.
 */
export async function dealFileDownloadLink(
  ports: RefusalPorts & {
    readonly dealFiles: Pick<DealFileRepository, 'access'>;
    readonly blobs: DownloadSigner & Pick<BlobStore, 'dealFileKey'>;
    readonly accessTrail: Pick<AccessTrail, 'record' | 'recordRefusal'>;
    /** Whether the stage scans stored files (absent: it does not): only a cleared file gets a link. */
    readonly scanning?: boolean;
  },
  request: DealFileChange,
): Promise<{ readonly url: string; readonly file: DealFile }> {
  const { requester, deal, fileId } = request;
  const facts = {
    action: 'deal_file.download' as const,
    groupId: deal.groupId,
    dealId: deal.dealId,
    fileId,
  };
  try {
    const file = await findDealFile(ports.dealFiles, { userId: requester.userId, deal, fileId });
    const key = ports.blobs.dealFileKey(file.groupId, file.dealId, file.id);
    const entry = newAccessEntry({ ...facts, outcome: 'allowed' }, requester, ports);
    return { url: await downloadLink(ports, key, file, entry), file };
  } catch (error) {
    if (error instanceof NotFound || error instanceof AccessDenied) {
      throw await refusedAfterRecording(ports, requester, error, [facts]);
    }
    throw error;
  }
}
