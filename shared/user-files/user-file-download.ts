import type { BlobStore, DownloadSigner } from '../blobs/blob-store.ts';
import { NotFound } from '../domain/outcome.ts';
import type { UserFileRepository } from './user-file-repository.ts';

const DOWNLOAD_LINK_SECONDS = 5 * 60;

/** A link that downloads the owner's file under its original name; valid five minutes. */
export async function userFileDownloadLink(
  ports: {
    readonly userFiles: Pick<UserFileRepository, 'get'>;
    readonly blobs: DownloadSigner & Pick<BlobStore, 'userFileKey'>;
  },
  userId: number,
  fileId: number,
): Promise<string> {
  const file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) throw new NotFound();
  return ports.blobs.signDownload(ports.blobs.userFileKey(userId, fileId), {
    downloadName: file.name,
    expiresInSeconds: DOWNLOAD_LINK_SECONDS,
  });
}
