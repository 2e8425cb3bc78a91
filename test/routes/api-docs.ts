import { handler } from '#functions/api-docs/handler.ts';
import { DOCS_ASSET_NAMES } from '#shared/docs/swagger-ui-assets.ts';
import { resultBytes } from '#shared/http/answer-size.ts';
import { getEvent, lambdaContext } from '#test/support/api-events.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const ASSET = 'swagger-ui.css';

export default routeFacts({
  routes: {
    'GET /docs': { largestAnswer: () => handler(getEvent('/docs'), lambdaContext()) },
    'GET /docs/{asset}': {
      request: () => ({ path: `/docs/${ASSET}` }),
      largestAnswer: async () => {
        // The largest asset, uncompressed (a client that does not accept gzip).
        const answers = await Promise.all(
          DOCS_ASSET_NAMES.map((asset) =>
            handler(getEvent(`/docs/${asset}`, { asset }), lambdaContext()),
          ),
        );
        return answers.reduce((a, b) => (resultBytes(a) >= resultBytes(b) ? a : b));
      },
    },
  },
  examples: {
    together: {
      'GET /docs 200': (kit) => kit.call('GET', '/docs'),
      'GET /docs/{asset} 200 text/css': (kit) =>
        kit.call('GET', `/docs/${ASSET}`, { sent: { parameters: { asset: ASSET } } }),
      'GET /docs/{asset} 200 text/javascript': (kit) =>
        kit.call('GET', '/docs/swagger-ui-bundle.js'),
      'GET /docs/{asset} 404': (kit) => kit.call('GET', '/docs/swagger-ui.map'),
    },
  },
});
