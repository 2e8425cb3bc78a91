import { newAccessEntry } from '../access-trail/access-entry.ts';
import type { RefusalPorts } from '../access-trail/record-refusals.ts';
import type { FileType } from '../domain/file-type.ts';
import type { DealFile } from './deal-file.ts';
import { type DealFileChange, withEditorAccess } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/** Fields a client may change; an absent one is left alone, `type: null` clears the type. */
export interface DealFileChanges {
  readonly type?: FileType | null;
}

/**
 * PUT .../deal/{deal_id}/file/{file_id}: an editor changes a deal file's type. A request that
 * changes nothing writes nothing, so `updated_at` moves only when the file did. A change
 * lands with its `deal_file.update` entry; a refusal is recorded in the deal's trail.
 */
export async function updateDealFile(
  ports: RefusalPorts & {
    readonly dealFiles: Pick<DealFileRepository, 'access' | 'updateType'>;
  },
  request: DealFileChange & { readonly changes: DealFileChanges },
): Promise<DealFile> {
  const { requester, deal, fileId, changes } = request;
  const action = 'deal_file.update';
  return withEditorAccess(ports, { ...request, action }, async (file) => {
    if (changes.type === undefined || changes.type === file.type) return file;
    const now = ports.now?.() ?? new Date();
    const change = { type: changes.type, updatedAt: now.toISOString() };
    const entry = newAccessEntry(
      { action, outcome: 'allowed', groupId: deal.groupId, dealId: deal.dealId, fileId },
      requester,
      { ...ports, now: () => now },
    );
    const written = await ports.dealFiles.updateType(requester.userId, deal, fileId, change, entry);
    return written ? { ...file, ...change } : undefined;
  });
}
