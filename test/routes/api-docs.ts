import { routeFacts } from '#test/support/route-facts.ts';

const ASSET = 'swagger-ui.css';

export default routeFacts({
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
