import type { UserFileRepository } from '../user-files/user-file-repository.ts';
import { findUserFile } from '../user-files/find-user-file.ts';
import type { AccessEntry } from '../access-trail/access-entry.ts';
import type { TrailPage, TrailPageRequest, TrailQueries } from './trail-queries.ts';

/**
 * A deal room's copy of an owner's file, as the owner sees it: how often links to it were
 * issued and to how many members, first and last, and never to whom (the fund's people are
 * the fund's; docs/adr/0012-access-trail.md).
 */
export interface DealRoomCopy {
  readonly groupId: number;
  readonly dealId: number;
  /** The copy's own id, in its deal. */
  readonly fileId: number;
  readonly downloads: number;
  /** Distinct members who downloaded it. */
  readonly members: number;
  /** The first and last download; undefined when there is none. */
  readonly firstAt?: string;
  readonly lastAt?: string;
}

export interface OwnFileAccess {
  /** A page of the file's own entries (its owner's, or the operator's on it), newest first. */
  readonly entries: TrailPage;
  /** Every deal room still holding a copy, the newest copy first. */
  readonly dealRooms: readonly DealRoomCopy[];
}

/**
 * The most copies counted: the newest. Each copy costs a query of its own downloads; an
 * owner's file copied into more rooms than this shows the newest this many (the docs say so).
 */
const MAX_DEAL_ROOMS = 1000;
/** Copies counted at once: their queries overlap, a few at a time. */
const COUNTED_AT_ONCE = 8;

/**
 * GET /api/v1/user/me/file/{file_id}/access (extension): what the owner of a file may know
 * of its accesses. Anyone else's file, or none, is the user-file routes' NotFound.
 */
export async function readOwnFileAccess(
  ports: {
    readonly userFiles: Pick<UserFileRepository, 'get'>;
    readonly trail: Pick<TrailQueries, 'userFilePage' | 'fileEntries'>;
  },
  request: { readonly userId: number; readonly fileId: number; readonly page: TrailPageRequest },
): Promise<OwnFileAccess> {
  const { userId, fileId, page } = request;
  await findUserFile(ports, userId, fileId);
  const [entries, dealRooms] = await Promise.all([
    ports.trail.userFilePage(fileId, page),
    dealRoomsOf(ports.trail, fileId, page.signal),
  ]);
  return { entries, dealRooms };
}

/** The live copies made of the file (their `deal_file.add` entries), each counted. */
async function dealRoomsOf(
  trail: Pick<TrailQueries, 'fileEntries'>,
  fileId: number,
  signal?: AbortSignal,
): Promise<DealRoomCopy[]> {
  const copies: AccessEntry[] = [];
  for await (const entry of trail.fileEntries(fileId, { actions: ['deal_file.add'] }, signal)) {
    copies.push(entry);
    if (copies.length === MAX_DEAL_ROOMS) break;
  }
  const counted: (DealRoomCopy | undefined)[] = [];
  for (let start = 0; start < copies.length; start += COUNTED_AT_ONCE) {
    const batch = copies.slice(start, start + COUNTED_AT_ONCE);
    counted.push(...(await Promise.all(batch.map((copy) => countedCopy(trail, copy, signal)))));
  }
  return counted.filter((copy) => copy !== undefined);
}

/** A copy's downloads, or undefined once it was deleted (its room no longer holds it). */
async function countedCopy(
  trail: Pick<TrailQueries, 'fileEntries'>,
  copy: AccessEntry,
  signal?: AbortSignal,
): Promise<DealRoomCopy | undefined> {
  const { groupId, dealId, fileId } = copy;
  if (groupId === undefined || dealId === undefined || fileId === undefined) return undefined;
  let downloads = 0;
  const members = new Set<number>();
  let firstAt: string | undefined;
  let lastAt: string | undefined;
  const filter = {
    actions: ['deal_file.download', 'deal_file.delete'],
    outcome: 'allowed',
  } as const;
  // Newest first: a delete is met before the downloads it ended.
  for await (const entry of trail.fileEntries(fileId, filter, signal)) {
    if (entry.action === 'deal_file.delete') return undefined;
    downloads++;
    if (entry.userId !== undefined) members.add(entry.userId);
    lastAt ??= entry.at;
    firstAt = entry.at;
  }
  return {
    groupId,
    dealId,
    fileId,
    downloads,
    members: members.size,
    ...(firstAt === undefined ? {} : { firstAt }),
    ...(lastAt === undefined ? {} : { lastAt }),
  };
}
