import type { UserFileBody } from './user-file.ts';
import type { UserFile } from '../user-file.ts';

/** The contract's UserFile shape, and nothing of ours beyond it. */
export const toUserFileBody = (file: UserFile): UserFileBody => ({
  name: file.name,
  id: file.id,
  user_id: file.userId,
  type: file.type,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
  is_archived: file.isArchived,
  filesize: file.filesize,
  location: file.location,
});
