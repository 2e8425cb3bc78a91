import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { publicJwkOf, withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { routeFacts } from '#test/support/route-facts.ts';

async function largestKeySet(): Promise<ApiResult> {
  // Two keys live during a rotation.
  let keys = await withNewKey({ keys: [] }, new Date(0), {
    activateInSeconds: 0,
    tokenSeconds: 86_400,
  });
  keys = await withNewKey(keys, new Date(1000), { activateInSeconds: 0, tokenSeconds: 86_400 });
  return jsonResponse(200, { keys: keys.keys.map(publicJwkOf) });
}

export default routeFacts({
  routes: {
    'GET /api/v1/auth/realtime-jwks.json': { largestAnswer: largestKeySet },
  },
  examples: {
    together: {
      // Without a token, as a realtime server fetches it.
      'GET /api/v1/auth/realtime-jwks.json 200': (kit) =>
        kit.call('GET', '/api/v1/auth/realtime-jwks.json'),
    },
  },
});
