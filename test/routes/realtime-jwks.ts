import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  examples: {
    together: {
      // Without a token, as a realtime server fetches it.
      'GET /api/v1/auth/realtime-jwks.json 200': (kit) =>
        kit.call('GET', '/api/v1/auth/realtime-jwks.json'),
    },
  },
});
