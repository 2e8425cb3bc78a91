import type { DealFileBody } from './deal-file.ts';
import type { DealFile } from '../deal-file.ts';

/** The contract's DealFile: its fields only; group, size and location stay ours. */
export const toDealFileBody = (file: DealFile): DealFileBody => ({
  name: file.name,
  id: file.id,
  deal_id: file.dealId,
  type: file.type,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
  is_archived: file.isArchived,
});

/** Everything we keep about a deal file, in the contract's naming: the operator's view. */
export const toDealFileRecord = (file: DealFile) => ({
  group_id: file.groupId,
  deal_id: file.dealId,
  id: file.id,
  name: file.name,
  type: file.type,
  created_at: file.createdAt,
  updated_at: file.updatedAt,
  is_archived: file.isArchived,
  filesize: file.filesize,
  location: file.location,
});
