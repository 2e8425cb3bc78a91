import { newAccessEntry } from '../access-trail/access-entry.ts';
import type { RefusalPorts } from '../access-trail/record-refusals.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { logger } from '../logger.ts';
import { type DealFileChange, withEditorAccess } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/**
 * DELETE .../deal/{deal_id}/file/{file_id} (extension): an editor removes a deal file. The
 * record goes first, the reverse of creation's order, so no record ever points at bytes that
 * are gone. When the bytes then fail to go, the record comes back and the caller gets the
 * error: the delete happened whole or not at all, and a retry finishes it. Only when the
 * record cannot come back either are the bytes left to the reconcile command.
 *
 * The record's delete lands with its `deal_file.delete` entry; a refusal is recorded in the
 * deal's trail. A record that comes back keeps the entry: the trail shows the delete asked
 * for and made, then undone by our fault, which the caller's retry finishes (another entry).
 */
export async function deleteDealFile(
  ports: RefusalPorts & {
    readonly dealFiles: Pick<DealFileRepository, 'access' | 'delete' | 'create'>;
    readonly blobs: Pick<BlobStore, 'delete' | 'dealFileKey'>;
  },
  request: DealFileChange,
): Promise<void> {
  const { requester, deal, fileId } = request;
  const action = 'deal_file.delete';
  const deleted = await withEditorAccess(ports, { ...request, action }, async (file) => {
    const entry = newAccessEntry(
      { action, outcome: 'allowed', groupId: deal.groupId, dealId: deal.dealId, fileId },
      requester,
      ports,
    );
    return (await ports.dealFiles.delete(requester.userId, deal, fileId, entry)) ? file : undefined;
  });
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
