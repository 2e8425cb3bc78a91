import type { BlobStore } from '../blobs/blob-store.ts';
import type { DealRef } from '../groups/group.ts';
import { logger } from '../logger.ts';
import { withEditorAccess } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/**
 * DELETE .../deal/{deal_id}/file/{file_id} (extension): an editor removes a deal file. The
 * record goes first, the reverse of creation's order, so no record ever points at bytes that
 * are gone. When the bytes then fail to go, the record comes back and the caller gets the
 * error: the delete happened whole or not at all, and a retry finishes it. Only when the
 * record cannot come back either are the bytes left to the reconcile command.
 */
export async function deleteDealFile(
  ports: {
    readonly dealFiles: Pick<DealFileRepository, 'access' | 'delete' | 'create'>;
    readonly blobs: Pick<BlobStore, 'delete' | 'dealFileKey'>;
  },
  request: { readonly userId: number; readonly deal: DealRef; readonly fileId: number },
): Promise<void> {
  const { userId, deal, fileId } = request;
  const deleted = await withEditorAccess(ports.dealFiles, request, async (file) =>
    (await ports.dealFiles.delete(userId, deal, fileId)) ? file : undefined,
  );
  const key = ports.blobs.dealFileKey(deal.groupId, deal.dealId, fileId);
  try {
    await ports.blobs.delete(key);
  } catch (error) {
    await ports.dealFiles.create(deleted).then(
      (restored) => {
        if (restored === 'deal-missing') {
          logger.error('A deleted deal file kept its bytes: its deal is gone', { key, error });
        }
      },
      (restoreError: unknown) => {
        logger.error('A deleted deal file kept its bytes: its record could not come back', {
          key,
          error,
          restoreError,
        });
      },
    );
    throw error;
  }
}
