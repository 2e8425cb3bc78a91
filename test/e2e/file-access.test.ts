/**
 * GET /api/v1/user/me/file/{file_id}/access: a file's owner reads their own entries about it
 * and each deal room's copy, counted, against entries seeded straight into the stage's trail.
 */
import { describe, expect, it } from 'vitest';
import type { AccessEntry } from '#shared/access-trail/access-entry.ts';
import { toAccessEntryBody } from '#shared/access-reports/api/access-entry.ts';
import { NOT_FOUND, validationBody } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { seedStageTrail } from '#test/support/stage-trail.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { entryAt, requestOf } from '#test/support/trail-seed.ts';

const stage = useTestStage();

const OWNER = 511;
const OTHER = 512;
/** Members of the funds' deal rooms. */
const ANALYSTS = [601, 602, 603] as const;
const COPIES = { first: 9_000_001, second: 9_000_002, deleted: 9_000_003 } as const;
const accessUrl = (fileId: number | string, query = '') =>
  `/api/v1/user/me/file/${String(fileId)}/access${query}`;

const own = (at: string, action: 'user_file.download' | 'user_file.rename', fileId: number) =>
  entryAt(at, { action, outcome: 'allowed', fileId }, requestOf(OWNER));
const copied = (at: string, fileId: number, sourceFileId: number, groupId: number) =>
  entryAt(at, {
    action: 'deal_file.add',
    outcome: 'allowed',
    groupId,
    dealId: 1,
    fileId,
    sourceFileId,
    sourceUserId: OWNER,
  });
const downloaded = (at: string, fileId: number, groupId: number, userId: number) =>
  entryAt(
    at,
    { action: 'deal_file.download', outcome: 'allowed', groupId, dealId: 1, fileId },
    requestOf(userId),
  );

interface World {
  readonly fileId: number;
  readonly ownEntries: readonly AccessEntry[];
}

let made: Promise<World> | undefined;
/** The owner's file, their entries about it, and three copies: two live, one deleted. */
const world = () =>
  (made ??= (async () => {
    const uploaded = await stage().upload(OWNER, uploadForm('the deck'));
    expect(uploaded.status).toBe(201);
    const { id: fileId } = (await uploaded.json()) as { id: number };
    const ownEntries = [
      own('2026-08-01T09:00:00.000Z', 'user_file.download', fileId),
      own('2026-08-01T09:05:00.000Z', 'user_file.rename', fileId),
      own('2026-08-02T09:00:00.000Z', 'user_file.download', fileId),
    ];
    await seedStageTrail(stage(), [
      ...ownEntries,
      // The owner's entry about another file of theirs: not this file's.
      own('2026-08-01T09:10:00.000Z', 'user_file.download', fileId + 1),
      copied('2026-08-01T10:00:00.000Z', COPIES.first, fileId, 51),
      copied('2026-08-01T11:00:00.000Z', COPIES.deleted, fileId, 51),
      copied('2026-08-01T12:00:00.000Z', COPIES.second, fileId, 52),
      downloaded('2026-08-03T08:00:00.000Z', COPIES.first, 51, 601),
      downloaded('2026-08-03T09:00:00.000Z', COPIES.first, 51, 602),
      downloaded('2026-08-04T16:45:00.000Z', COPIES.first, 51, 601),
      // A refused download and a room token: neither is a download of the copy.
      entryAt(
        '2026-08-04T17:00:00.000Z',
        {
          action: 'deal_file.download',
          outcome: 'refused',
          status: 404,
          groupId: 51,
          dealId: 1,
          fileId: COPIES.first,
        },
        requestOf(603),
      ),
      entryAt(
        '2026-08-04T17:01:00.000Z',
        {
          action: 'realtime_token.issue',
          outcome: 'allowed',
          groupId: 51,
          dealId: 1,
          roomId: 'local:v1:group:51:deal:1',
        },
        requestOf(603),
      ),
      // The deleted copy was downloaded, then deleted: its room no longer holds it.
      downloaded('2026-08-03T08:30:00.000Z', COPIES.deleted, 51, 603),
      entryAt('2026-08-05T08:00:00.000Z', {
        action: 'deal_file.delete',
        outcome: 'allowed',
        groupId: 51,
        dealId: 1,
        fileId: COPIES.deleted,
      }),
    ]);
    return { fileId, ownEntries };
  })());

/** The rooms holding a copy, the newest copy first: no member named. */
const DEAL_ROOMS = [
  {
    group_id: 52,
    deal_id: 1,
    file_id: COPIES.second,
    downloads: 0,
    members: 0,
    first_at: null,
    last_at: null,
  },
  {
    group_id: 51,
    deal_id: 1,
    file_id: COPIES.first,
    downloads: 3,
    members: 2,
    first_at: '2026-08-03T08:00:00.000Z',
    last_at: '2026-08-04T16:45:00.000Z',
  },
];

const read = (path: string, as: number = OWNER) => stage().request(path, { as });

/** A refusal: its exact status and body, and nothing stored, in the table or the trail. */
async function expectRefusal(path: string, as: number, status: number, body: unknown) {
  const before = { stored: await stage().stored(), trail: await stage().trailItems() };
  const response = await read(path, as);
  expect(response.status, path).toBe(status);
  expect(await response.json(), path).toEqual(body);
  expect(await stage().stored()).toEqual(before.stored);
  expect(await stage().trailItems()).toEqual(before.trail);
}

describe('GET /api/v1/user/me/file/{file_id}/access', () => {
  it('answers the owner their own entries, newest first, and each live copy counted', async () => {
    const { fileId, ownEntries } = await world();
    const response = await read(accessUrl(fileId));
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBeNull();
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      entries: ownEntries.toReversed().map(toAccessEntryBody),
      deal_rooms: DEAL_ROOMS,
    });
    // Counts, never people: no analyst's id anywhere in the answer.
    for (const analyst of ANALYSTS) expect(text).not.toContain(String(analyst));
  });

  it('pages the entries, every page with every room', async () => {
    const { fileId, ownEntries } = await world();
    const first = await read(accessUrl(fileId, '?limit=2'));
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    expect(link).toMatch(
      new RegExp(`^/api/v1/user/me/file/${String(fileId)}/access\\?limit=2&cursor=[\\w-]+$`),
    );
    const second = await read(link ?? '');
    expect(second.headers.get('link')).toBeNull();
    const newestFirst = ownEntries.toReversed().map(toAccessEntryBody);
    expect(await first.json()).toEqual({
      entries: newestFirst.slice(0, 2),
      deal_rooms: DEAL_ROOMS,
    });
    expect(await second.json()).toEqual({ entries: newestFirst.slice(2), deal_rooms: DEAL_ROOMS });
  });

  it.each([
    ['another user, for the file', () => OTHER, (w: World) => w.fileId],
    ['an analyst of its deal room, for the file', () => 601, (w: World) => w.fileId],
    ['the owner, for a copy of it in a deal', () => OWNER, () => COPIES.first],
    ['the owner, for a file that does not exist', () => OWNER, (w: World) => w.fileId + 1000],
  ])('refuses %s the user-file routes’ 404, storing nothing', async (_who, as, file) => {
    const w = await world();
    await expectRefusal(accessUrl(file(w)), as(), 404, NOT_FOUND);
  });

  it('refuses an id that is no integer with FastAPI’s 422', async () => {
    await world();
    await expectRefusal(
      accessUrl('abc'),
      OWNER,
      422,
      validationBody({
        type: 'int_parsing',
        loc: ['path', 'file_id'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'abc',
      }),
    );
  });
});
