import { EXAMPLE_OWNER, idIn } from '#test/support/example-situations.ts';
import { largestUserFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'GET /api/v1/user/me/file/{file_id}': { largestBody: largestUserFileBody },
  },
  examples: {
    first: {
      // The owner's file as the upload stored it, before the archive example changes it.
      'GET /api/v1/user/me/file/{file_id} 200': async (kit) => {
        const id = idIn(await kit.answer('POST /api/v1/user/me/file 201'));
        return kit.call('GET', `/api/v1/user/me/file/${String(id)}`, {
          as: EXAMPLE_OWNER,
          sent: { parameters: { file_id: id } },
        });
      },
    },
  },
});
