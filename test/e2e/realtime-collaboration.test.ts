import { HocuspocusProvider } from '@hocuspocus/provider';
import { base64url, decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { realtimeKeysFile } from '#infra/local/stage/local-stage.ts';
import {
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import { FileKeyStore } from '#infra/local/adapters/file-key-store.ts';
import { signRealtimeToken } from '#shared/realtime/sign-realtime-token.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { startRealtimeServer } from '#test/support/realtime-server.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
let realtime: Awaited<ReturnType<typeof startRealtimeServer>>;
const providers: HocuspocusProvider[] = [];

const ROOM = 'local:v1:group:950:deal:1';
const OTHER_ROOM = 'local:v1:group:950:deal:2';
const [EDITOR_A, EDITOR_B, VIEWER] = [951, 952, 953];

beforeAll(async () => {
  const created = '2026-06-01T00:00:00.000Z';
  await stage().put([
    toGroupItem({ id: 950, name: 'Fund', createdAt: created }),
    toDealItem({ groupId: 950, id: 1, name: 'Deal 1', createdAt: created }),
    toDealItem({ groupId: 950, id: 2, name: 'Deal 2', createdAt: created }),
    toMemberItem({ groupId: 950, userId: EDITOR_A, role: 'editor' }),
    toMemberItem({ groupId: 950, userId: EDITOR_B, role: 'editor' }),
    toMemberItem({ groupId: 950, userId: VIEWER, role: 'viewer' }),
  ]);
  realtime = await startRealtimeServer({ baseUrl: stage().url });
});

afterAll(async () => {
  for (const provider of providers) provider.destroy();
  await realtime.close();
});

/** A realtime token from the local stage, for these rooms, as this user. */
async function tokenFor(userId: number, roomIds: string[]): Promise<string> {
  const response = await stage().request('/api/v1/auth/get-realtime-token', {
    method: 'POST',
    as: userId,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ room_ids: roomIds }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** A Yjs client on a document; settles once it is synced, or once it is refused. */
async function connect(document: string, token: string) {
  const doc = new Y.Doc();
  const outcome = await new Promise<{ synced: boolean; scope?: string; reason?: string }>(
    (resolve) => {
      let scope: string | undefined;
      const provider = new HocuspocusProvider({
        url: realtime.url,
        name: document,
        token,
        document: doc,
        onAuthenticated: (event) => {
          scope = event.scope;
        },
        onSynced: () => {
          resolve({ synced: true, ...(scope === undefined ? {} : { scope }) });
        },
        onAuthenticationFailed: ({ reason }) => {
          resolve({ synced: false, reason });
        },
      });
      providers.push(provider);
    },
  );
  return { doc, text: doc.getText('notes'), ...outcome };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + waitLimit(10_000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const serverText = (name: string) => realtime.document(name)?.getText('notes').toJSON();

describe('our tokens on a real Hocuspocus server', () => {
  it('two editors in an allowed room: an edit by one reaches the other', async () => {
    const a = await connect(ROOM, await tokenFor(EDITOR_A, [ROOM]));
    const b = await connect(ROOM, await tokenFor(EDITOR_B, [ROOM, OTHER_ROOM]));
    expect([a.synced, a.scope, b.synced, b.scope]).toEqual([
      true,
      'read-write',
      true,
      'read-write',
    ]);
    a.text.insert(0, 'Term sheet v1');
    await until(() => b.text.toJSON() === 'Term sheet v1', 'the edit to sync');
    expect(serverText(ROOM)).toBe('Term sheet v1');
  });

  it('a room not in the token is refused', async () => {
    const refused = await connect(OTHER_ROOM, await tokenFor(EDITOR_A, [ROOM]));
    expect(refused).toMatchObject({ synced: false, reason: 'room-not-granted' });
    const general = await connect(ROOM, await tokenFor(EDITOR_A, []));
    expect(general).toMatchObject({ synced: false, reason: 'room-not-granted' });
  });

  it('a viewer reads but cannot write', async () => {
    const editor = await connect(ROOM, await tokenFor(EDITOR_A, [ROOM]));
    const viewer = await connect(ROOM, await tokenFor(VIEWER, [ROOM]));
    expect([viewer.synced, viewer.scope]).toEqual([true, 'readonly']);
    const before = serverText(ROOM) ?? '';
    const dropped = realtime.droppedUpdates();
    viewer.text.insert(0, 'VIEWER WAS HERE ');
    editor.text.insert(editor.text.length, ' + editor note');
    await until(() => viewer.text.toJSON().endsWith(' + editor note'), 'the editor’s edit');
    await until(() => realtime.droppedUpdates() > dropped, 'the server to drop the viewer’s edit');
    expect(serverText(ROOM)).toBe(`${before} + editor note`);
    expect(editor.text.toJSON()).not.toContain('VIEWER');
  });

  it('an expired token, and forged ones, are refused', async () => {
    const keys = await new FileKeyStore(realtimeKeysFile(stage().dataDir)).load();
    const expired = signRealtimeToken(keys, new Date(), {
      issuer: stage().url,
      audience: 'realtime',
      subject: String(EDITOR_A),
      tokenSeconds: -60,
      rooms: { [ROOM]: ['read', 'write'] },
    });
    expect(await connect(ROOM, expired)).toMatchObject({ synced: false, reason: 'invalid-token' });
    const valid = await tokenFor(EDITOR_A, [ROOM]);
    const [header, payload] = valid.split('.');
    const garbled = `${header ?? ''}.${payload ?? ''}.${'A'.repeat(86)}`;
    // A stranger's ES256 key under our kid; `alg: none`; HS256 keyed with our public key.
    const { kid } = decodeProtectedHeader(valid);
    const claims = decodeJwt(valid);
    const stranger = await generateKeyPair('ES256');
    const foreign = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: kid ?? '' })
      .sign(stranger.privateKey);
    const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none', kid }))}.${payload ?? ''}.`;
    const published = (await (
      await fetch(`${stage().url}/api/v1/auth/realtime-jwks.json`)
    ).json()) as { keys: unknown[] };
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: kid ?? '' })
      .sign(new TextEncoder().encode(JSON.stringify(published.keys[0])));
    for (const forged of [garbled, foreign, unsigned, hs256]) {
      expect(await connect(ROOM, forged)).toMatchObject({ synced: false, reason: 'invalid-token' });
    }
  });
});
