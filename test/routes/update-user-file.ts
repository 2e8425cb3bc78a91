import { EXAMPLE_OWNER, idIn, json, requestExample } from '#test/support/example-situations.ts';
import { largestUserFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const fileAt = (id: number) => `/api/v1/user/me/file/${String(id)}`;

export default routeFacts({
  routes: {
    'PATCH /api/v1/user/me/file/{file_id}': {
      request: () => ({ json: { name: 'renamed.pdf', is_archived: true } }),
      largestBody: largestUserFileBody,
    },
  },
  examples: {
    together: {
      // The owner's file, archived once the list and the read have shown it as uploaded.
      'PATCH /api/v1/user/me/file/{file_id} 200': async (kit) => {
        const id = idIn(await kit.answer('POST /api/v1/user/me/file 201'));
        const changes = requestExample('PATCH /api/v1/user/me/file/{file_id}');
        return kit.call('PATCH', fileAt(id), {
          as: EXAMPLE_OWNER,
          ...json(changes),
          sent: { body: changes, parameters: { file_id: id } },
        });
      },
      'PATCH /api/v1/user/me/file/{file_id} 422': (kit) =>
        kit.call('PATCH', fileAt(1), { as: kit.newUser(), ...json({ name: '' }) }),
    },
  },
});
