import type { BlobStore } from '../blobs/blob-store.ts';
import { dealFileObjectKey } from '../data/keys.ts';
import type { DealRef } from '../groups/group.ts';
import { logger } from '../logger.ts';
import { withEditorAccess } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/**
 * DELETE .../deal/{deal_id}/file/{file_id} (extension): an editor removes a deal file. The
 * record goes first, the reverse of creation's order, so no record ever points at bytes that
 * are gone; bytes a failed delete leaves behind belong to no record and are logged for the
 * reconcile command.
 */
export async function deleteDealFile(
  ports: {
    readonly files: Pick<DealFileRepository, 'access' | 'delete'>;
    readonly blobs: Pick<BlobStore, 'delete'>;
  },
  request: { readonly userId: number; readonly deal: DealRef; readonly fileId: number },
): Promise<void> {
  const { userId, deal, fileId } = request;
  await withEditorAccess(ports.files, request, async () =>
    (await ports.files.delete(userId, deal, fileId)) ? true : undefined,
  );
  const key = dealFileObjectKey(deal.groupId, deal.dealId, fileId);
  await ports.blobs.delete(key).catch((error: unknown) => {
    logger.error('Could not delete the object of a deleted deal file', { key, error });
  });
}
