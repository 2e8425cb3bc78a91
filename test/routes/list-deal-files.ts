import { toDealFileItem } from '#shared/storage/file-items.ts';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { EXAMPLE_DEAL, EXAMPLE_GROUP, EXAMPLE_VIEWER } from '#test/support/example-situations.ts';
import { largestDealFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const filesOf = (deal: number) =>
  `/api/v1/group/${String(EXAMPLE_GROUP)}/deal/${String(deal)}/file`;
/** A deal of the examples' group with more files than a page of 20 holds, as its link shows. */
const PAGED_DEAL = 4;

export default routeFacts({
  routes: {
    'GET /api/v1/group/{group_id}/deal/{deal_id}/file': { largestBody: largestDealFileBody },
  },
  examples: {
    together: {
      'GET /api/v1/group/{group_id}/deal/{deal_id}/file 200': (kit) =>
        kit.call('GET', filesOf(EXAMPLE_DEAL), {
          as: EXAMPLE_VIEWER,
          sent: { parameters: { group_id: EXAMPLE_GROUP, deal_id: EXAMPLE_DEAL } },
        }),
      // Records alone, as a listing reads them.
      'GET /api/v1/group/{group_id}/deal/{deal_id}/file 200 header link': async (kit) => {
        await seedDeals(kit.stage, {
          groups: [],
          deals: [{ groupId: EXAMPLE_GROUP, dealId: PAGED_DEAL }],
        });
        await kit.stage.put(
          Array.from({ length: 21 }, (_, n) =>
            toDealFileItem(dealFile(EXAMPLE_GROUP, PAGED_DEAL, n + 1000)),
          ),
        );
        return kit.call('GET', `${filesOf(PAGED_DEAL)}?limit=20`, { as: EXAMPLE_VIEWER });
      },
    },
    elsewhere: {
      'GET /api/v1/group/{group_id}/deal/{deal_id}/file 400':
        'the same answer as the user list’s (LIST_TOO_LARGE), produced by the same code',
    },
  },
});
