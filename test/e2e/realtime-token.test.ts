import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import type { Role } from '#shared/groups/group.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';

const stage = useTestStage();

const TOKEN = '/api/v1/auth/get-realtime-token';
const JWKS = '/api/v1/auth/realtime-jwks.json';
const ERASED = { detail: 'This account has been erased' };
const PATTERN = '^[a-z][a-z0-9-]{0,31}:v1:group:[1-9][0-9]{0,15}:deal:[1-9][0-9]{0,15}$';

const room = (groupId: number, dealId: number, stage = 'local') =>
  `${stage}:v1:group:${groupId}:deal:${dealId}`;

const ask = (as: number | undefined, body: unknown) =>
  stage().request(TOKEN, {
    method: 'POST',
    ...(as === undefined ? {} : { as }),
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Groups with deals 1..deals each, and the user's role in each group. */
async function seed(userId: number, groups: Record<number, { role?: Role; deals: number }>) {
  const created = '2026-06-01T00:00:00.000Z';
  await stage().put(
    Object.entries(groups).flatMap(([g, { role, deals }]) => [
      toGroupItem({ id: Number(g), name: `G${g}`, createdAt: created }),
      ...(role === undefined ? [] : [toMemberItem({ groupId: Number(g), userId, role })]),
      ...Array.from({ length: deals }, (_, i) =>
        toDealItem({ groupId: Number(g), id: i + 1, name: `D${i + 1}`, createdAt: created }),
      ),
    ]),
  );
}

/** A token the stage issued, verified against the stage's own JWKS over HTTP. */
async function verified(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const body = (await response.json()) as { token: string };
  expect(Object.keys(body)).toEqual(['token']);
  const jwks = createRemoteJWKSet(new URL(`${stage().url}${JWKS}`));
  const { payload, protectedHeader } = await jwtVerify(body.token, jwks, {
    issuer: stage().url,
    audience: 'realtime',
    algorithms: ['ES256'],
  });
  return { token: body.token, payload, protectedHeader };
}

describe('POST /api/v1/auth/get-realtime-token', () => {
  it('room_ids: [] → a general token: ES256 with a kid, the documented claims, no rooms', async () => {
    const { payload, protectedHeader } = await verified(await ask(800, { room_ids: [] }));
    expect(protectedHeader).toEqual({
      alg: 'ES256',
      kid: expect.any(String) as string,
      typ: 'JWT',
    });
    expect(payload).toEqual({
      iss: stage().url,
      aud: 'realtime',
      sub: '800',
      iat: expect.any(Number) as number,
      nbf: payload.iat,
      exp: (payload.iat ?? 0) + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
      rooms: {},
    });
  });

  it('grants each listed room with its role’s permissions; duplicates collapse', async () => {
    await seed(801, { 810: { role: 'editor', deals: 2 }, 811: { role: 'viewer', deals: 1 } });
    const { payload } = await verified(
      await ask(801, { room_ids: [room(810, 1), room(811, 1), room(810, 2), room(810, 1)] }),
    );
    expect(payload.rooms).toEqual({
      [room(810, 1)]: ['read', 'write'],
      [room(811, 1)]: ['read'],
      [room(810, 2)]: ['read', 'write'],
    });
  });

  it.each([
    ['another stage', [room(820, 1, 'production')]],
    ['a group the caller is not in', [room(821, 1)]],
    ['a deal not in the group', [room(820, 9)]],
    ['one inaccessible room among accessible ones', [room(820, 1), room(820, 2), room(821, 1)]],
  ])('%s → 404 for the whole request, no token', async (_, roomIds) => {
    await seed(802, { 820: { role: 'editor', deals: 2 }, 821: { deals: 1 } });
    await expectRefused(stage(), () => ask(802, { room_ids: roomIds }), 404, NOT_FOUND);
  });

  it('an erased user → 403, no token: not a general one, nor for rooms they were in', async () => {
    await seed(804, { 830: { role: 'editor', deals: 1 } });
    expect(
      (await stage().admin(['user', 'erase', '--user', '804', '--settle-seconds', '0'])).code,
    ).toBe(0);
    for (const roomIds of [[], [room(830, 1)], [room(830, 1, 'production')]]) {
      await expectRefused(stage(), () => ask(804, { room_ids: roomIds }), 403, ERASED);
    }
  });

  it('50 rooms in 50 groups: one BatchGetItem beside the erasure marker, the trail in one TransactWriteItems, a token under 8 KB', async () => {
    const groups = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [
        9_000_000_000 + i,
        { role: 'editor' as const, deals: 1 },
      ]),
    );
    await seed(803, groups);
    const roomIds = Object.keys(groups).map((g) => room(Number(g), 1));
    const calls: string[] = [];
    const client = stage().wiring.clients.dynamodb;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        calls.push(context.commandName ?? '?');
        return next(args);
      },
      { step: 'initialize', name: 'countRealtimeCalls' },
    );
    let response: Response;
    try {
      response = await ask(803, { room_ids: roomIds });
    } finally {
      client.middlewareStack.remove('countRealtimeCalls');
    }
    const { token, payload } = await verified(response);
    // At once: the marker's GetItem is no round trip more; the 50 rooms' access-trail entries
    // are one more, before the token is signed.
    expect(calls.sort()).toEqual([
      'BatchGetItemCommand',
      'GetItemCommand',
      'TransactWriteItemsCommand',
    ]);
    expect(Object.keys(payload.rooms as object)).toHaveLength(50);
    expect(Buffer.byteLength(token)).toBeLessThan(8 * 1024);
  });

  const mismatch = (i: number, input: string) => ({
    type: 'string_pattern_mismatch',
    loc: ['body', 'room_ids', i],
    msg: `String should match pattern '${PATTERN}'`,
    input,
    ctx: { pattern: PATTERN },
  });

  it.each([
    [
      'every bad entry, each at its index',
      {
        room_ids: [
          'local:v1:group:1:deal:1',
          'local:v1:group:01:deal:1',
          'room-7',
          'LOCAL:v1:group:1:deal:1',
        ],
      },
      [
        mismatch(1, 'local:v1:group:01:deal:1'),
        mismatch(2, 'room-7'),
        mismatch(3, 'LOCAL:v1:group:1:deal:1'),
      ],
    ],
    [
      'a non-string entry',
      { room_ids: [7] },
      [
        {
          type: 'string_type',
          loc: ['body', 'room_ids', 0],
          msg: 'Input should be a valid string',
          input: 7,
        },
      ],
    ],
    [
      'room_ids missing',
      {},
      [{ type: 'missing', loc: ['body', 'room_ids'], msg: 'Field required', input: {} }],
    ],
    [
      'room_ids not a list',
      { room_ids: 'local:v1:group:1:deal:1' },
      [
        {
          type: 'list_type',
          loc: ['body', 'room_ids'],
          msg: 'Input should be a valid list',
          input: 'local:v1:group:1:deal:1',
        },
      ],
    ],
  ])('%s → 422', async (_, body, errors) => {
    await expectRefused(stage(), () => ask(804, body), 422, { detail: errors });
  });

  it('51 rooms → 422 too_long, reported by the length alone', async () => {
    const roomIds = Array.from({ length: 51 }, (_, i) => room(1, i + 1));
    await expectRefused(stage(), () => ask(805, { room_ids: roomIds }), 422, {
      detail: [
        {
          type: 'too_long',
          loc: ['body', 'room_ids'],
          msg: 'List should have at most 50 items after validation, not 51',
          input: roomIds,
          ctx: { field_type: 'List', max_length: 50, actual_length: 51 },
        },
      ],
    });
  });

  it('without a token → 401', async () => {
    await expectRefused(stage(), () => ask(undefined, { room_ids: [] }), 401, UNAUTHORIZED);
  });
});

describe('GET /api/v1/auth/realtime-jwks.json', () => {
  it('publishes the public keys, without auth, cacheable', async () => {
    const response = await fetch(`${stage().url}${JWKS}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const { keys } = (await response.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String) as string,
        y: expect.any(String) as string,
        kid: expect.any(String) as string,
        alg: 'ES256',
        use: 'sig',
      });
    }
  });

  it('after `admin -- realtime-key rotate`: the new key signs, the old token still verifies', async () => {
    const before = await verified(await ask(806, { room_ids: [] }));
    const { code, out, err } = await stage().admin(['realtime-key', 'rotate']);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const { kid } = JSON.parse(out) as { kid: string };
    const after = await verified(await ask(806, { room_ids: [] }));
    expect(after.protectedHeader.kid).toBe(kid);
    expect(kid).not.toBe(before.protectedHeader.kid);
    const published = (await (await fetch(`${stage().url}${JWKS}`)).json()) as {
      keys: { kid: string }[];
    };
    expect(published.keys.map((k) => k.kid)).toEqual([before.protectedHeader.kid, kid]);
    // The token signed before the rotation verifies against today's JWKS.
    const jwks = createRemoteJWKSet(new URL(`${stage().url}${JWKS}`));
    await expect(
      jwtVerify(before.token, jwks, { issuer: stage().url, audience: 'realtime' }),
    ).resolves.toBeDefined();
    expect(decodeProtectedHeader(before.token).kid).toBe(before.protectedHeader.kid);
  });
});
