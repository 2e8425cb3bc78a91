/**
 * The largest pages the trail's readers answer with, within the domain's limits: what their
 * route facts build their largest answers from (test/unit/largest-answers.test.ts).
 */
import type { DealRoomCopy } from '#shared/access-reports/read-own-file-access.ts';
import type { TrailPage } from '#shared/access-reports/trail-queries.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { MAX_ID } from './largest-bodies.ts';
import { entryAt } from './trail-seed.ts';

const AT = '2026-06-02T14:05:00.000Z';

/**
 * A page of the longest entries: a `user-agent` as long as API Gateway lets a request's
 * headers be (10,240 bytes), each character two bytes of JSON, and the largest ids.
 */
export function largestEntryPage(): TrailPage {
  const entry = entryAt(
    AT,
    {
      action: 'realtime_token.issue',
      outcome: 'refused',
      status: 404,
      groupId: MAX_ID,
      dealId: MAX_ID,
      fileId: MAX_ID,
      roomId: `production:v1:group:${String(MAX_ID)}:deal:${String(MAX_ID)}`,
      sourceFileId: MAX_ID,
      role: 'viewer',
      previousRole: 'editor',
    },
    {
      userId: MAX_ID,
      requestId: 'Kx3fZjZvoAMEb8Q=',
      sourceIp: 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255',
      userAgent: '"'.repeat(10_240),
    },
  );
  return {
    entries: Array.from({ length: MAX_PAGE_SIZE }, (_, n) => ({
      entry,
      position: `${AT}#${n.toString(16).padStart(32, '0')}`,
    })),
    next: `${AT}#${'f'.repeat(32)}`,
  };
}

/** As many copies as the owner's view counts, each with the largest ids and counts. */
export const largestDealRooms = (): DealRoomCopy[] =>
  Array.from({ length: 1000 }, () => ({
    groupId: MAX_ID,
    dealId: MAX_ID,
    fileId: MAX_ID,
    downloads: MAX_ID,
    members: MAX_ID,
    firstAt: AT,
    lastAt: AT,
  }));
