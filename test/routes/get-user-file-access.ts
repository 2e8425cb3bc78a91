import {
  FILE_ACCESS_EXAMPLE,
  fileAccessAnswer,
} from '#shared/access-reports/api/own-file-access.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { jsonResponse } from '#shared/http/responses.ts';
import { EXAMPLE_OWNER, idIn } from '#test/support/example-situations.ts';
import { MAX_ID } from '#test/support/largest-bodies.ts';
import { largestDealRooms, largestEntryPage } from '#test/support/largest-trail.ts';
import { routeFacts } from '#test/support/route-facts.ts';
import { entryOfBody, seedStageTrail } from '#test/support/stage-trail.ts';
import { entryAt, requestOf } from '#test/support/trail-seed.ts';

const [room] = FILE_ACCESS_EXAMPLE.deal_rooms;
/** The copy's downloads the example counts: two members, three links, first to last. */
const copyDownloads = (copyId: number) =>
  [
    [room?.first_at ?? '', 23],
    ['2026-06-04T10:00:00.000Z', 41],
    [room?.last_at ?? '', 23],
  ].map(([at, userId]) =>
    entryAt(
      String(at),
      {
        action: 'deal_file.download',
        outcome: 'allowed',
        groupId: room?.group_id ?? 0,
        dealId: room?.deal_id ?? 0,
        fileId: copyId,
      },
      requestOf(Number(userId)),
    ),
  );

export default routeFacts({
  routes: {
    'GET /api/v1/user/me/file/{file_id}/access': {
      // A page of entries within 2 MB however long each, and every room counted.
      largestAnswer: () => {
        const { body, headers } = fileAccessAnswer(
          `/api/v1/user/me/file/${String(MAX_ID)}/access`,
          { limit: MAX_PAGE_SIZE },
          { entries: largestEntryPage(), dealRooms: largestDealRooms() },
        );
        return Promise.resolve(jsonResponse(200, body, headers));
      },
    },
  },
  examples: {
    // The owner's file before any other situation downloads it.
    first: {
      'GET /api/v1/user/me/file/{file_id}/access 200': async (kit) => {
        const fileId = idIn(await kit.answer('POST /api/v1/user/me/file 201'));
        const copyId = MAX_ID - 57;
        await seedStageTrail(kit.stage, [
          ...FILE_ACCESS_EXAMPLE.entries.map((body) => entryOfBody({ ...body, file_id: fileId })),
          entryAt('2026-06-02T10:00:00.000Z', {
            action: 'deal_file.add',
            outcome: 'allowed',
            groupId: room?.group_id ?? 0,
            dealId: room?.deal_id ?? 0,
            fileId: copyId,
            sourceFileId: fileId,
            sourceUserId: EXAMPLE_OWNER,
          }),
          ...copyDownloads(copyId),
        ]);
        return kit.call('GET', `/api/v1/user/me/file/${String(fileId)}/access`, {
          as: EXAMPLE_OWNER,
          sent: { parameters: { file_id: fileId } },
        });
      },
    },
  },
});
