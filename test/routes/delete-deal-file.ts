import { seedDeals } from '#test/support/deal-fixtures.ts';
import {
  contestedDealFile,
  EXAMPLE_DEAL,
  EXAMPLE_GROUP,
  EXAMPLE_OWNER,
  EXAMPLE_VIEWER,
  exampleDealFile,
  exampleDealFilePath,
} from '#test/support/example-situations.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  examples: {
    together: {
      'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 403': (kit) =>
        kit.call('DELETE', exampleDealFilePath(), { as: EXAMPLE_VIEWER }),
      'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 409': async (kit) =>
        kit.call('DELETE', await contestedDealFile(kit), { as: EXAMPLE_OWNER }),
    },
    alone: {
      // A second file of the examples' deal, once the others have listed the deal with one.
      'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 204': async (kit) => {
        const file = exampleDealFile(EXAMPLE_GROUP, 7);
        await seedDeals(kit.stage, { groups: [], deals: [], files: [file] });
        return kit.call('DELETE', exampleDealFilePath(EXAMPLE_GROUP, file.id), {
          as: EXAMPLE_OWNER,
          sent: {
            parameters: { group_id: EXAMPLE_GROUP, deal_id: EXAMPLE_DEAL, file_id: file.id },
          },
        });
      },
    },
  },
});
