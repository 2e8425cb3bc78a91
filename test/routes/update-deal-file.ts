import {
  contestedDealFile,
  EXAMPLE_DEAL,
  EXAMPLE_DEAL_FILE,
  EXAMPLE_GROUP,
  EXAMPLE_OWNER,
  EXAMPLE_VIEWER,
  exampleDealFilePath,
  json,
  requestExample,
} from '#test/support/example-situations.ts';
import { largestDealFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}': {
      request: () => ({ json: { type: 'deck' } }),
      largestBody: largestDealFileBody,
    },
  },
  examples: {
    together: {
      'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 200': (kit) => {
        const body = requestExample('PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}');
        const parameters = {
          group_id: EXAMPLE_GROUP,
          deal_id: EXAMPLE_DEAL,
          file_id: EXAMPLE_DEAL_FILE,
        };
        return kit.call('PUT', exampleDealFilePath(), {
          as: EXAMPLE_OWNER,
          ...json(body),
          sent: { body, parameters },
        });
      },
      'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 403': (kit) =>
        kit.call('PUT', exampleDealFilePath(), { as: EXAMPLE_VIEWER, ...json({ type: 'deck' }) }),
      'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 409': async (kit) =>
        kit.call('PUT', await contestedDealFile(kit), {
          as: EXAMPLE_OWNER,
          ...json({ type: 'deck' }),
        }),
      'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} 422': (kit) =>
        kit.call('PUT', exampleDealFilePath(), { as: kit.newUser(), ...json({ type: 'memo' }) }),
    },
  },
});
