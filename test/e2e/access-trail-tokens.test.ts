/**
 * The access trail's entries for realtime tokens (issue 55 item 2): one per room, in the
 * room's deal's trail, before the token; a refused request recorded in each deal it named,
 * at most five refused requests a minute per caller, whatever deals they name.
 */
import { describe, expect, it } from 'vitest';
import {
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { NOT_FOUND } from '#test/support/fastapi-bodies.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entriesAddedBy, storedEntry } from '#test/support/trail-entries.ts';

const stage = useTestStage(() => ({ malwareScanning: false }));
const TOKEN = '/api/v1/auth/get-realtime-token';
const USER_AGENT = 'trail-test/1.0 (tokens)';
const CREATED = '2026-06-01T00:00:00.000Z';

const room = (groupId: number, dealId: number) => `local:v1:group:${groupId}:deal:${dealId}`;

const ask = (as: number, roomIds: readonly string[]) =>
  stage().request(TOKEN, {
    method: 'POST',
    as,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify({ room_ids: roomIds }),
  });

/** A group with deals 1 and 2, and members by role. */
async function seed(groupId: number, members: Record<number, 'viewer' | 'editor'>) {
  await stage().put([
    toGroupItem({ id: groupId, name: `G${groupId}`, createdAt: CREATED }),
    ...[1, 2].map((id) => toDealItem({ groupId, id, name: `D${id}`, createdAt: CREATED })),
    ...Object.entries(members).map(([userId, role]) =>
      toMemberItem({ groupId, userId: Number(userId), role }),
    ),
  ]);
}

const requested = (userId: number, response: Response) => ({
  actor: 'user',
  user_id: userId,
  request_id: response.headers.get('apigw-requestid'),
  source_ip: '127.0.0.1',
  user_agent: USER_AGENT,
});

describe('the access trail of realtime tokens', () => {
  it("records each room in its deal's trail, one entry a room, before the token", async () => {
    await seed(901, { 81: 'viewer' });
    let response: Response | undefined;
    const added = await entriesAddedBy(stage(), async () => {
      response = await ask(81, [room(901, 1), room(901, 2), room(901, 1)]);
    });
    expect(response?.status).toBe(200);
    expect(added).toEqual(
      [1, 2].map((dealId, i) =>
        storedEntry(added[i] ?? {}, {
          scope: `DEAL#901#${String(dealId)}`,
          action: 'realtime_token.issue',
          outcome: 'allowed',
          group_id: 901,
          deal_id: dealId,
          room_id: room(901, dealId),
          ...requested(81, response as Response),
        }),
      ),
    );
  });

  it('records a general token (no rooms) nowhere', async () => {
    const added = await entriesAddedBy(stage(), async () => {
      expect((await ask(82, [])).status).toBe(200);
    });
    expect(added).toEqual([]);
  });

  it("records a refused request in each named deal's trail, keyed by minute, caller and slot", async () => {
    await seed(902, { 83: 'editor' });
    let answered: Response | undefined;
    const added = await entriesAddedBy(stage(), async () => {
      await expectRefused(
        stage(),
        async () => (answered = (await ask(84, [room(902, 1)])).clone()),
        404,
        NOT_FOUND,
      );
    });
    expect(added).toHaveLength(1);
    const [entry] = added;
    const at = String(entry?.at);
    expect(entry).toEqual({
      ...storedEntry(entry ?? {}, {
        scope: 'DEAL#902#1',
        action: 'realtime_token.issue',
        outcome: 'refused',
        status: 404,
        group_id: 902,
        deal_id: 1,
        room_id: room(902, 1),
        ...requested(84, answered as Response),
      }),
      entry: expect.stringMatching(new RegExp(`^${at.slice(0, 16)}#refused#84#[0-4]$`)) as unknown,
    });
  });

  it('writes at most five refusals a minute per caller, whatever the caller sends', async () => {
    await seed(903, {});
    const added = await entriesAddedBy(stage(), async () => {
      for (let n = 0; n < 12; n++) {
        const response = await ask(85, [room(903, 2)]);
        expect(response.status).toBe(404);
        await response.body?.cancel();
      }
    });
    const minutes = new Map<string, number>();
    for (const item of added) {
      expect(item.entry).toMatch(/#refused#85#[0-4]$/);
      const minute = String(item.entry).slice(0, 16);
      minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
    }
    expect(added.length).toBeGreaterThan(0);
    for (const count of minutes.values()) expect(count).toBeLessThanOrEqual(5);
  });

  it("records an erased caller's refusal with its 403", async () => {
    await seed(904, { 86: 'editor' });
    expect(
      (await stage().admin(['user', 'erase', '--user', '86', '--settle-seconds', '0'])).code,
    ).toBe(0);
    const added = await entriesAddedBy(stage(), async () => {
      const response = await ask(86, [room(904, 1)]);
      expect(response.status).toBe(403);
      await response.body?.cancel();
    });
    expect(added.map(({ scope, outcome, status }) => ({ scope, outcome, status }))).toEqual([
      { scope: 'DEAL#904#1', outcome: 'refused', status: 403 },
    ]);
  });
});
