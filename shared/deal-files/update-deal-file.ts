import type { DealRef } from '../groups/group.ts';
import type { FileType } from '../domain/file-type.ts';
import type { DealFile } from './deal-file.ts';
import { withEditorAccess } from './deal-file-access.ts';
import type { DealFileRepository } from './deal-file-repository.ts';

/** Fields a client may change; an absent one is left alone, `type: null` clears the type. */
export interface DealFileChanges {
  readonly type?: FileType | null;
}

/**
 * PUT .../deal/{deal_id}/file/{file_id}: an editor changes a deal file's type. A request that
 * changes nothing writes nothing, so `updated_at` moves only when the file did.
 */
export async function updateDealFile(
  ports: {
    readonly dealFiles: Pick<DealFileRepository, 'access' | 'updateType'>;
    readonly now?: () => Date;
  },
  request: {
    readonly userId: number;
    readonly deal: DealRef;
    readonly fileId: number;
    readonly changes: DealFileChanges;
  },
): Promise<DealFile> {
  const { userId, deal, fileId, changes } = request;
  return withEditorAccess(ports.dealFiles, request, async (file) => {
    if (changes.type === undefined || changes.type === file.type) return file;
    const change = {
      type: changes.type,
      updatedAt: (ports.now?.() ?? new Date()).toISOString(),
    };
    const written = await ports.dealFiles.updateType(userId, deal, fileId, change);
    return written ? { ...file, ...change } : undefined;
  });
}
