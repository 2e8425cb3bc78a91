import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as z from 'zod';
import { CheckFailed, type SmokeRun } from './smoke-run.ts';

const TokenBody = z.object({ token: z.string() });

/** The rooms a realtime token for these room ids opens, once it verifies against the JWKS. */
const realtimeTokens = (run: SmokeRun) => {
  const jwks = createRemoteJWKSet(new URL(`${run.base}/api/v1/auth/realtime-jwks.json`), {
    timeoutDuration: run.timeoutMs,
  });
  return async (roomIds: string[]) => {
    const response = await run.call('/api/v1/auth/get-realtime-token', {
      method: 'POST',
      headers: { ...run.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ room_ids: roomIds }),
    });
    await run.expectStatus(response, 200, 'realtime token');
    const { token } = await run.json(response, TokenBody, 'realtime token');
    try {
      const { payload } = await jwtVerify(token, jwks);
      const rooms = payload.rooms;
      if (typeof rooms !== 'object' || rooms === null) throw new CheckFailed('no rooms claim');
      return Object.keys(rooms).sort();
    } catch (error) {
      if (error instanceof CheckFailed) throw error;
      throw new CheckFailed(
        `the token does not verify against the published JWKS: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
};

/** A token for no rooms opens none; one for the options' deal room (if any) opens just it. */
export async function realtimeRooms(run: SmokeRun): Promise<void> {
  const realtimeToken = realtimeTokens(run);
  await run.step('realtime token, no rooms', async () => {
    const rooms = await realtimeToken([]);
    if (rooms.length > 0) throw new CheckFailed(`the token opens ${rooms.join(', ')}`);
    return 'verified against the JWKS';
  });

  if (run.options.deal === undefined) return;
  const { groupId, dealId } = run.options.deal;
  const roomId = `${run.options.stage}:v1:group:${String(groupId)}:deal:${String(dealId)}`;
  await run.step('realtime token, deal room', async () => {
    const rooms = await realtimeToken([roomId]);
    if (rooms.join() !== roomId)
      throw new CheckFailed(`the token opens ${rooms.join(', ') || 'no room'}`);
    return `${roomId}, verified`;
  });
}
