import { ACCESS_ENTRY_EXAMPLES, trailPageAnswer } from '#shared/access-reports/api/access-entry.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { jsonResponse } from '#shared/http/responses.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { EXAMPLE_DEAL, EXAMPLE_GROUP, EXAMPLE_OWNER } from '#test/support/example-situations.ts';
import { MAX_ID } from '#test/support/largest-bodies.ts';
import { largestEntryPage } from '#test/support/largest-trail.ts';
import { routeFacts } from '#test/support/route-facts.ts';
import { entryOfBody, seedStageTrail } from '#test/support/stage-trail.ts';
import { entryAt, requestOf, timesFrom } from '#test/support/trail-seed.ts';

const accessOf = (deal: number) =>
  `/api/v1/group/${String(EXAMPLE_GROUP)}/deal/${String(deal)}/access`;
/** A deal of the examples' group with more entries than a page of 20 holds, as its link shows. */
const PAGED_DEAL = 8;

export default routeFacts({
  routes: {
    'GET /api/v1/group/{group_id}/deal/{deal_id}/access': {
      // A page holds at most 2 MB of entries, however long each: the answer the handler builds.
      largestAnswer: () => {
        const { body, headers } = trailPageAnswer(
          accessOf(MAX_ID),
          { limit: MAX_PAGE_SIZE },
          largestEntryPage(),
        );
        return Promise.resolve(jsonResponse(200, body, headers));
      },
    },
  },
  examples: {
    // Before any other situation's access reaches the examples' deal.
    first: {
      'GET /api/v1/group/{group_id}/deal/{deal_id}/access 200': async (kit) => {
        await seedStageTrail(kit.stage, ACCESS_ENTRY_EXAMPLES.map(entryOfBody));
        return kit.call('GET', accessOf(EXAMPLE_DEAL), {
          as: EXAMPLE_OWNER,
          sent: { parameters: { group_id: EXAMPLE_GROUP, deal_id: EXAMPLE_DEAL } },
        });
      },
    },
    together: {
      'GET /api/v1/group/{group_id}/deal/{deal_id}/access 200 header link': async (kit) => {
        await seedDeals(kit.stage, {
          groups: [],
          deals: [{ groupId: EXAMPLE_GROUP, dealId: PAGED_DEAL }],
        });
        await seedStageTrail(
          kit.stage,
          timesFrom('2026-06-02T14:00:00.000Z', 21).map((at) =>
            entryAt(
              at,
              {
                action: 'realtime_token.issue',
                outcome: 'allowed',
                groupId: EXAMPLE_GROUP,
                dealId: PAGED_DEAL,
                roomId: `local:v1:group:${String(EXAMPLE_GROUP)}:deal:${String(PAGED_DEAL)}`,
              },
              requestOf(EXAMPLE_OWNER),
            ),
          ),
        );
        return kit.call('GET', `${accessOf(PAGED_DEAL)}?limit=20`, { as: EXAMPLE_OWNER });
      },
    },
  },
});
