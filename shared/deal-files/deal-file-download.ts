import type { BlobStore, DownloadSigner } from '../blobs/blob-store.ts';
import type { DealRef } from '../groups/group.ts';
import { downloadLink } from '../scanning/download-hold.ts';
import type { DealFile } from './deal-file.ts';
import type { DealFileRepository } from './deal-file-repository.ts';
import { findDealFile } from './find-deal-file.ts';

/**
 * GET …/deal/{deal_id}/file/{file_id}/download (extension): a link to a deal file's bytes for
 * any member, as a user file's download gives its owner, with the file it serves. Membership
 * is judged first: a non-member, a deal outside the group and a missing file get the same
 * NotFound, so only a member learns that the malware scan holds a file (FileHeld,
 * FileQuarantined).
 */
export async function dealFileDownloadLink(
  ports: {
    readonly dealFiles: Pick<DealFileRepository, 'access'>;
    readonly blobs: DownloadSigner & Pick<BlobStore, 'dealFileKey'>;
    /** Whether the stage scans stored files (absent: it does not): only a cleared file gets a link. */
    readonly scanning?: boolean;
  },
  request: { readonly userId: number; readonly deal: DealRef; readonly fileId: number },
): Promise<{ readonly url: string; readonly file: DealFile }> {
  const file = await findDealFile(ports.dealFiles, request);
  const key = ports.blobs.dealFileKey(file.groupId, file.dealId, file.id);
  return { url: await downloadLink(ports, key, file), file };
}
