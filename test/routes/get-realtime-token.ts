import { expect } from 'vitest';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { MAX_ROOMS_PER_TOKEN } from '#shared/realtime/api/realtime-token.ts';
import { withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { ROOM_ID_MAX_LENGTH } from '#shared/realtime/room-id.ts';
import { signRealtimeToken } from '#shared/realtime/sign-realtime-token.ts';
import {
  EXAMPLE_DEAL,
  EXAMPLE_GROUP,
  EXAMPLE_OWNER,
  json,
  requestExample,
} from '#test/support/example-situations.ts';
import { NOT_FOUND } from '#test/support/fastapi-bodies.ts';
import { MAX_ID } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const TOKEN = '/api/v1/auth/get-realtime-token';

/** A token for the most rooms, each id at its longest, under the longest issuer and audience. */
async function largestToken(): Promise<ApiResult> {
  const keys = await withNewKey({ keys: [] }, new Date(0), {
    activateInSeconds: 0,
    tokenSeconds: 86_400,
  });
  const rooms = Object.fromEntries(
    Array.from({ length: MAX_ROOMS_PER_TOKEN }, (_, i) => [
      `${'e'.repeat(32)}:v1:group:${String(MAX_ID - i)}:deal:${String(MAX_ID)}`.slice(
        0,
        ROOM_ID_MAX_LENGTH,
      ),
      ['read', 'write'] as const,
    ]),
  );
  const token = signRealtimeToken(keys, new Date(), {
    issuer: `https://${'i'.repeat(200)}.example`,
    audience: 'a'.repeat(255),
    subject: String(MAX_ID),
    tokenSeconds: 86_400,
    rooms,
  });
  return jsonResponse(200, { token });
}

export default routeFacts({
  routes: {
    'POST /api/v1/auth/get-realtime-token': {
      request: (own) => ({
        json: { room_ids: [`local:v1:group:${String(own.group)}:deal:${String(own.deal)}`] },
      }),
      answerToIntruder: () => ({ status: 404, body: NOT_FOUND }),
      largestAnswer: largestToken,
    },
  },
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
