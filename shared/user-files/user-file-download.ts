import type { BlobStore, DownloadSigner } from '../blobs/blob-store.ts';
import { NotFound } from '../domain/outcome.ts';
import { downloadLink } from '../scanning/download-hold.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/**
 * A link that downloads the owner's file under its original name; valid five minutes, with
 * the file it serves. A file the malware scan holds gets none (FileHeld, FileQuarantined).
 */
export async function userFileDownloadLink(
  ports: {
    readonly userFiles: Pick<UserFileRepository, 'get'>;
    readonly blobs: DownloadSigner & Pick<BlobStore, 'userFileKey'>;
    /** Whether the stage scans stored files (absent: it does not): only a cleared file gets a link. */
    readonly scanning?: boolean;
  },
  userId: number,
  fileId: number,
): Promise<{ readonly url: string; readonly file: UserFile }> {
  const file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) throw new NotFound();
  const url = await downloadLink(ports, ports.blobs.userFileKey(userId, fileId), file);
  return { url, file };
}
