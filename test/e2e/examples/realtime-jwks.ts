import { exampleSituations } from '#test/support/example-situations.ts';

export default exampleSituations({
  together: {
    // Without a token, as a realtime server fetches it.
    'GET /api/v1/auth/realtime-jwks.json 200': (kit) =>
      kit.call('GET', '/api/v1/auth/realtime-jwks.json'),
  },
});
