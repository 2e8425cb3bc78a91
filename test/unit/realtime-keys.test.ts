import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  publicJwkOf,
  publishedKeysAt,
  signingKeyAt,
  withNewKey,
} from '#shared/realtime/realtime-key-set.ts';
import { parseRoomId, ROOM_ID_PATTERN } from '#shared/realtime/room-id.ts';
import { signRealtimeToken } from '#shared/realtime/sign-realtime-token.ts';

describe('room ids', () => {
  it.each([
    ['local:v1:group:7:deal:3', { stage: 'local', groupId: 7, dealId: 3 }],
    [
      'production:v1:group:1:deal:9007199254740991',
      { stage: 'production', groupId: 1, dealId: 9007199254740991 },
    ],
    ['dev-eu-2:v1:group:12:deal:34', { stage: 'dev-eu-2', groupId: 12, dealId: 34 }],
  ])('%s names its stage, group and deal', (roomId, room) => {
    expect(parseRoomId(roomId)).toEqual({ roomId, ...room });
    expect(new RegExp(ROOM_ID_PATTERN).test(roomId)).toBe(true);
  });

  it.each([
    'local:v1:group:07:deal:3',
    'local:v1:group:0:deal:3',
    'Local:v1:group:7:deal:3',
    'local:v2:group:7:deal:3',
    'local:v1:group:7:deal:3:',
    ' local:v1:group:7:deal:3',
    'local:v1:group:-7:deal:3',
    `${'a'.repeat(33)}:v1:group:7:deal:3`,
  ])('refuses %j, as the schema’s pattern does', (roomId) => {
    expect(parseRoomId(roomId)).toBeUndefined();
    expect(new RegExp(ROOM_ID_PATTERN).test(roomId)).toBe(false);
  });

  it('takes no id beyond the safe integers, which no deal can have', () => {
    expect(new RegExp(ROOM_ID_PATTERN).test('local:v1:group:9007199254740993:deal:1')).toBe(true);
    expect(parseRoomId('local:v1:group:9007199254740993:deal:1')).toBeUndefined();
  });
});

const HOUR = 3600;
const at = (iso: string) => new Date(iso);
const claims = {
  issuer: 'http://localhost:8000',
  audience: 'realtime',
  subject: '42',
  tokenSeconds: HOUR,
  rooms: {},
};

describe('key rotation', () => {
  it('a new key signs from its activation; the previous one stays published until its tokens have expired', async () => {
    const t0 = at('2026-01-01T00:00:00Z');
    const first = await withNewKey({ keys: [] }, t0, { activateInSeconds: 0, tokenSeconds: HOUR });
    const [k1] = first.keys;
    const oldToken = signRealtimeToken(first, at('2026-01-01T09:59:00Z'), claims);

    const rotated = await withNewKey(first, at('2026-01-01T10:00:00Z'), {
      activateInSeconds: 900,
      tokenSeconds: HOUR,
    });
    const k2 = rotated.keys[1];
    const kids = (now: string) => publishedKeysAt(rotated, at(now), HOUR).map((k) => k.kid);

    // Published ahead of use: every verifier learns the new key before any token carries it.
    expect(kids('2026-01-01T10:00:00Z')).toEqual([k1?.kid, k2?.kid]);
    expect(signingKeyAt(rotated, at('2026-01-01T10:14:59Z'))?.kid).toBe(k1?.kid);
    expect(signingKeyAt(rotated, at('2026-01-01T10:15:00Z'))?.kid).toBe(k2?.kid);
    const newToken = signRealtimeToken(rotated, at('2026-01-01T10:15:00Z'), claims);
    expect(decodeProtectedHeader(newToken)).toEqual({ alg: 'ES256', kid: k2?.kid, typ: 'JWT' });

    // The old key is published while the last token it signed (at 10:14:59) may live.
    expect(kids('2026-01-01T11:15:59Z')).toEqual([k1?.kid, k2?.kid]);
    expect(kids('2026-01-01T11:16:00Z')).toEqual([k2?.kid]);

    // Both tokens verify against what is published while both may be valid.
    const jwks = createLocalJWKSet({
      keys: publishedKeysAt(rotated, at('2026-01-01T10:30:00Z'), HOUR).map(publicJwkOf),
    });
    for (const [token, when] of [
      [oldToken, '2026-01-01T10:30:00Z'],
      [newToken, '2026-01-01T10:30:00Z'],
    ] as const) {
      const { payload } = await jwtVerify(token, jwks, {
        currentDate: at(when),
        algorithms: ['ES256'],
      });
      expect(payload.sub).toBe('42');
    }

    // A later rotation drops keys nothing valid was signed with.
    const again = await withNewKey(rotated, at('2026-01-02T00:00:00Z'), {
      activateInSeconds: 0,
      tokenSeconds: HOUR,
    });
    expect(again.keys.map((k) => k.kid)).toEqual([k2?.kid, again.keys[1]?.kid]);
  });

  it('signs nothing before the first key is active', async () => {
    const set = await withNewKey({ keys: [] }, at('2026-01-01T00:00:00Z'), {
      activateInSeconds: 60,
      tokenSeconds: HOUR,
    });
    expect(() => signRealtimeToken(set, at('2026-01-01T00:00:30Z'), claims)).toThrow(
      'No realtime signing key',
    );
  });

  it('publishes public halves only', async () => {
    const set = await withNewKey({ keys: [] }, new Date(), {
      activateInSeconds: 0,
      tokenSeconds: HOUR,
    });
    const [published] = publishedKeysAt(set, new Date(), HOUR).map(publicJwkOf);
    expect(Object.keys(published ?? {}).sort()).toEqual([
      'alg',
      'crv',
      'kid',
      'kty',
      'use',
      'x',
      'y',
    ]);
  });
});
