import { handler } from '#functions/openapi-document/handler.ts';
import { getEvent, lambdaContext } from '#test/support/api-events.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'GET /openapi.json': {
      largestAnswer: () => handler(getEvent('/openapi.json'), lambdaContext()),
    },
  },
});
