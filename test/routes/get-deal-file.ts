import { largestDealFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}': {
      largestBody: largestDealFileBody,
    },
  },
});
