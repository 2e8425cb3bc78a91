import * as z from 'zod';
import { FileIdPathSchema } from '../../user-files/api/file-id-path.ts';
import type { DealRoomCopy, OwnFileAccess } from '../read-own-file-access.ts';
import {
  ACCESS_ENTRY_EXAMPLES,
  type AccessEntryBody,
  AccessEntrySchema,
  entriesPageAnswer,
  TRAIL_PAGE_QUERY,
} from './access-entry.ts';

/** A deal room's copy of the file, counted: no member's id, ever. */
const DealRoomCopySchema = z
  .object({
    group_id: z.int(),
    deal_id: z.int(),
    file_id: z.int().describe('The copy’s own id, in its deal'),
    downloads: z.int().describe('Download links issued to the room’s members for the copy'),
    members: z.int().describe('How many distinct members downloaded it'),
    first_at: z.iso.datetime().nullable().describe('The first download; null before any'),
    last_at: z.iso.datetime().nullable().describe('The last download; null before any'),
  })
  .meta({ id: 'DealRoomCopy' });

/**
 * What a file's owner may know of its accesses: their own entries (a page of them), and the
 * deal rooms that hold a copy, counted.
 */
export const FileAccessSchema = z
  .object({
    entries: z
      .array(AccessEntrySchema)
      .describe('Your own entries about the file, newest first: a page of them'),
    deal_rooms: z
      .array(DealRoomCopySchema)
      .describe('Each deal room that holds a copy of the file, the newest copy first'),
  })
  .meta({ id: 'FileAccess' });

type FileAccessBody = z.output<typeof FileAccessSchema>;

const toDealRoomCopyBody = (copy: DealRoomCopy): z.output<typeof DealRoomCopySchema> => ({
  group_id: copy.groupId,
  deal_id: copy.dealId,
  file_id: copy.fileId,
  downloads: copy.downloads,
  members: copy.members,
  first_at: copy.firstAt ?? null,
  last_at: copy.lastAt ?? null,
});

/** The owner's view the examples show: their download and rename, and one room's copy. */
const ownEntry = (entry: Partial<AccessEntryBody>): AccessEntryBody => ({
  ...(ACCESS_ENTRY_EXAMPLES[0] as AccessEntryBody),
  group_id: null,
  deal_id: null,
  file_id: 42,
  ...entry,
});
export const FILE_ACCESS_EXAMPLE: FileAccessBody = {
  entries: [
    ownEntry({
      at: '2026-06-02T09:12:00.000Z',
      action: 'user_file.rename',
      request_id: 'Kx1Q8hWPoAMEbYw=',
    }),
    ownEntry({
      at: '2026-06-01T09:31:00.000Z',
      action: 'user_file.download',
      request_id: 'Kw9aBiWSoAMEbAg=',
    }),
  ],
  deal_rooms: [
    {
      group_id: 1,
      deal_id: 9,
      file_id: 57,
      downloads: 3,
      members: 2,
      first_at: '2026-06-03T08:00:00.000Z',
      last_at: '2026-06-04T16:45:00.000Z',
    },
  ],
};

/** What GET /api/v1/user/me/file/{file_id}/access validates (see `ApiOperation.request`). */
export const getUserFileAccessRequest = {
  path: FileIdPathSchema,
  query: z.object(TRAIL_PAGE_QUERY),
};

/** The owner's view as its answer: a page of entries, every room, and the next page's link. */
export function fileAccessAnswer(
  path: string,
  query: { readonly limit?: number },
  access: OwnFileAccess,
): { readonly body: FileAccessBody; readonly headers: Record<string, string> } {
  const { bodies, headers } = entriesPageAnswer(path, { limit: query.limit }, access.entries);
  return {
    body: { entries: bodies, deal_rooms: access.dealRooms.map(toDealRoomCopyBody) },
    headers,
  };
}
