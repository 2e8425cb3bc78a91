import { expect } from 'vitest';
import {
  EXAMPLE_DEAL,
  EXAMPLE_GROUP,
  EXAMPLE_OWNER,
  json,
  requestExample,
} from '#test/support/example-situations.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const TOKEN = '/api/v1/auth/get-realtime-token';

export default routeFacts({
  examples: {
    together: {
      'POST /api/v1/auth/get-realtime-token 200': (kit) => {
        const example = requestExample('POST /api/v1/auth/get-realtime-token') as {
          room_ids: string[];
        };
        // The example names a production room; this stage opens its own.
        const body = {
          room_ids: example.room_ids.map((room) => room.replace(/^[a-z]+:/, 'local:')),
        };
        return kit.call('POST', TOKEN, { as: EXAMPLE_OWNER, ...json(body), sent: { body } });
      },
      // A user the operator erased, asking for a general token.
      'POST /api/v1/auth/get-realtime-token 403': async (kit) => {
        const as = kit.newUser();
        const erased = await kit.stage.admin([
          'user',
          'erase',
          '--user',
          String(as),
          '--settle-seconds',
          '0',
        ]);
        expect(erased.code).toBe(0);
        return kit.call('POST', TOKEN, { as, ...json({ room_ids: [] }) });
      },
      'POST /api/v1/auth/get-realtime-token 404': (kit) =>
        kit.call('POST', TOKEN, {
          as: kit.newUser(),
          ...json({
            room_ids: [`local:v1:group:${String(EXAMPLE_GROUP)}:deal:${String(EXAMPLE_DEAL)}`],
          }),
        }),
      'POST /api/v1/auth/get-realtime-token 422': (kit) =>
        kit.call('POST', TOKEN, { as: kit.newUser(), ...json({}) }),
    },
  },
});
