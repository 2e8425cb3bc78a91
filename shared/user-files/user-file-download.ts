import { type EntryStamp, newAccessEntry, type Requester } from '../access-trail/access-entry.ts';
import type { AccessTrail } from '../access-trail/access-trail.ts';
import type { BlobStore, DownloadSigner } from '../blobs/blob-store.ts';
import { NotFound } from '../domain/outcome.ts';
import { downloadLink } from '../scanning/download-hold.ts';
import type { UserFile } from './user-file.ts';
import type { UserFileRepository } from './user-file-repository.ts';

/**
 * A link that downloads the owner's file under its original name; valid five minutes, with
 * the file it serves. A file the malware scan holds gets none (FileHeld, FileQuarantined).
 * Its `user_file.download` entry goes in the owner's trail before the link is signed.
 */
export async function userFileDownloadLink(
  ports: EntryStamp & {
    readonly userFiles: Pick<UserFileRepository, 'get'>;
    readonly blobs: DownloadSigner & Pick<BlobStore, 'userFileKey'>;
    readonly accessTrail: Pick<AccessTrail, 'record'>;
    /** Whether the stage scans stored files (absent: it does not): only a cleared file gets a link. */
    readonly scanning?: boolean;
  },
  requester: Requester,
  fileId: number,
): Promise<{ readonly url: string; readonly file: UserFile }> {
  const { userId } = requester;
  const file = await ports.userFiles.get(userId, fileId);
  if (file === undefined) throw new NotFound();
  const entry = newAccessEntry(
    { action: 'user_file.download', outcome: 'allowed', fileId },
    requester,
    ports,
  );
  const url = await downloadLink(ports, ports.blobs.userFileKey(userId, fileId), file, entry);
  return { url, file };
}
