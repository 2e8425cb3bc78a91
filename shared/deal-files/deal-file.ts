import type { FileType } from '../schemas/file-type.ts';

/** A file attached to a deal; members of the deal's group see it, editors change it. */
export interface DealFile {
  readonly groupId: number;
  readonly dealId: number;
  readonly id: number;
  readonly name: string;
  readonly type: FileType | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly isArchived: boolean;
  readonly filesize: number;
  readonly location: string | null;
}
