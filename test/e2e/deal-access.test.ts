/**
 * GET /api/v1/group/{group_id}/deal/{deal_id}/access: who may read a deal's trail, its pages
 * and every filter, against entries seeded straight into the stage's trail.
 */
import { describe, expect, it } from 'vitest';
import { ACCESS_ACTIONS, type AccessEntry } from '#shared/access-trail/access-entry.ts';
import { toAccessEntryBody } from '#shared/access-reports/api/access-entry.ts';
import { seedDeals } from '#test/support/deal-fixtures.ts';
import { NOT_FOUND, validationBody } from '#test/support/fastapi-bodies.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { seedStageTrail } from '#test/support/stage-trail.ts';
import { entryAt, requestOf, timesFrom } from '#test/support/trail-seed.ts';

const stage = useTestStage();

const GROUP = 41;
const DEAL = 5;
const USERS = { editor: 411, viewer: 412, nonMember: 413, founder: 414 } as const;
const accessUrl = (group: number | string, deal: number | string, query = '') =>
  `/api/v1/group/${String(group)}/deal/${String(deal)}/access${query}`;

const deal = { groupId: GROUP, dealId: DEAL };
/** 24 downloads two seconds apart: editor and viewer by turns, files 71, 72 and 73 by turns. */
const downloads = timesFrom('2026-07-01T10:00:00.000Z', 24, 2000).map((at, n) =>
  entryAt(
    at,
    { action: 'deal_file.download', outcome: 'allowed', ...deal, fileId: 71 + (n % 3) },
    requestOf(n % 2 === 0 ? USERS.editor : USERS.viewer),
  ),
);
/** The founder's deck, copied in by the operator before any download. */
const copy = entryAt('2026-07-01T09:00:00.000Z', {
  action: 'deal_file.add',
  outcome: 'allowed',
  ...deal,
  fileId: 71,
  sourceFileId: 700,
  sourceUserId: USERS.founder,
});
/** A stranger's refused download, filed under its minute. */
const refusal = entryAt(
  '2026-07-01T10:00:30.000Z',
  { action: 'deal_file.download', outcome: 'refused', status: 404, ...deal, fileId: 72 },
  requestOf(USERS.nonMember),
);
const token = entryAt(
  '2026-07-01T10:01:00.000Z',
  {
    action: 'realtime_token.issue',
    outcome: 'allowed',
    ...deal,
    roomId: `local:v1:group:${String(GROUP)}:deal:${String(DEAL)}`,
  },
  requestOf(USERS.viewer),
);
/** Deal 5's trail as its key orders it, newest first: the refusal at its minute's start. */
const minuteOf = (entry: AccessEntry) => entry.at.slice(0, 16);
const NEWEST_FIRST = [token, ...downloads.toReversed(), copy];
NEWEST_FIRST.splice(
  NEWEST_FIRST.findLastIndex((e) => minuteOf(e) === minuteOf(refusal)) + 1,
  0,
  refusal,
);
/** Another deal of the group and another group's deal 5: never in deal 5's answers. */
const elsewhere = [
  entryAt('2026-07-01T10:00:01.000Z', {
    action: 'deal_file.delete',
    outcome: 'allowed',
    groupId: GROUP,
    dealId: 6,
    fileId: 79,
  }),
  entryAt('2026-07-01T10:00:02.000Z', {
    action: 'deal_file.delete',
    outcome: 'allowed',
    groupId: GROUP + 1,
    dealId: DEAL,
    fileId: 79,
  }),
];

let seeded: Promise<void> | undefined;
/** The group, its members and deals, and the trails, once for the file. */
const world = () =>
  (seeded ??= (async () => {
    await seedDeals(stage(), {
      groups: [GROUP, GROUP + 1],
      members: [
        { groupId: GROUP, userId: USERS.editor, role: 'editor' },
        { groupId: GROUP, userId: USERS.viewer, role: 'viewer' },
        // An editor elsewhere: a 404 here is about this group, not the person.
        { groupId: GROUP + 1, userId: USERS.nonMember, role: 'editor' },
      ],
      deals: [
        { groupId: GROUP, dealId: DEAL },
        { groupId: GROUP, dealId: 6 },
        { groupId: GROUP + 1, dealId: DEAL },
      ],
    });
    await seedStageTrail(stage(), [...downloads, copy, refusal, token, ...elsewhere]);
  })());

const read = (path: string, as: number = USERS.editor) => stage().request(path, { as });
const bodies = (entries: readonly AccessEntry[]) => entries.map(toAccessEntryBody);
/** The `Link` header's target, relative to the stage. */
const nextOf = (response: Response): string | undefined =>
  /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];

/** Every page from `path` on, following the links: each page's bodies, and each link. */
async function everyPage(path: string) {
  const pages: unknown[][] = [];
  const links: string[] = [];
  for (let next: string | undefined = path; next !== undefined;) {
    const response = await read(next);
    expect(response.status, next).toBe(200);
    pages.push((await response.json()) as unknown[]);
    next = nextOf(response);
    if (next !== undefined) links.push(next);
  }
  return { pages, links, entries: pages.flat() };
}

/** A refusal: its exact status and body, and nothing stored, in the table or the trail. */
async function expectRefusal(path: string, as: number, status: number, body: unknown) {
  const before = { stored: await stage().stored(), trail: await stage().trailItems() };
  const response = await read(path, as);
  expect(response.status, path).toBe(status);
  expect(await response.json(), path).toEqual(body);
  expect(await stage().stored()).toEqual(before.stored);
  expect(await stage().trailItems()).toEqual(before.trail);
}

describe('GET …/deal/{deal_id}/access: who may read it', () => {
  it("answers an editor the deal's entries, every field, newest first, no other deal's", async () => {
    await world();
    const response = await read(accessUrl(GROUP, DEAL));
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBeNull();
    expect(await response.json()).toEqual(bodies(NEWEST_FIRST));
    // The operator's copy: no user, no request; a refusal: its status.
    expect(toAccessEntryBody(copy)).toMatchObject({
      actor: 'operator',
      user_id: null,
      request_id: null,
      source_ip: null,
      user_agent: null,
      source_file_id: 700,
    });
    expect(toAccessEntryBody(refusal)).toMatchObject({ outcome: 'refused', status: 404 });
  });

  it.each([
    ['a viewer of the group', USERS.viewer, GROUP, DEAL],
    ['an editor of another group', USERS.nonMember, GROUP, DEAL],
    ['the owner of a file copied into the deal', USERS.founder, GROUP, DEAL],
    ['an editor, for a deal of another group', USERS.editor, GROUP + 1, DEAL],
    ['an editor, for a deal the group does not hold', USERS.editor, GROUP, 9],
    ['an editor, for a group that does not exist', USERS.editor, 49, DEAL],
  ])('refuses %s the same 404, reading and storing nothing', async (_who, as, group, dealId) => {
    await world();
    await expectRefusal(accessUrl(group, dealId), as, 404, NOT_FOUND);
  });
});

describe('GET …/deal/{deal_id}/access: pages and filters', () => {
  it('pages as the file lists do, each entry once, the last page with no link', async () => {
    await world();
    const { pages, links, entries } = await everyPage(accessUrl(GROUP, DEAL, '?limit=7'));
    expect(pages.map((page) => page.length)).toEqual([7, 7, 7, 6]);
    expect(entries).toEqual(bodies(NEWEST_FIRST));
    for (const link of links) {
      expect(link).toMatch(/^\/api\/v1\/group\/41\/deal\/5\/access\?limit=7&cursor=[\w-]+$/);
    }
  });

  it.each([
    ['file_id=72', (e: AccessEntry) => e.fileId === 72],
    [`user_id=${String(USERS.viewer)}`, (e: AccessEntry) => e.userId === USERS.viewer],
    ['action=realtime_token.issue', (e: AccessEntry) => e.action === 'realtime_token.issue'],
    ['action=deal_file.add', (e: AccessEntry) => e.action === 'deal_file.add'],
    ['since=2026-07-01T10:00:40Z', (e: AccessEntry) => e.at >= '2026-07-01T10:00:40.000Z'],
    ['until=2026-07-01T10:00:04.000Z', (e: AccessEntry) => e.at < '2026-07-01T10:00:04.000Z'],
    // An offset names the same instant: 12:00:30+02:00 is 10:00:30Z, the refusal's time.
    [
      'since=2026-07-01T12:00:30%2B02:00&until=2026-07-01T10:00:31Z',
      (e: AccessEntry) => e.at >= '2026-07-01T10:00:30.000Z' && e.at < '2026-07-01T10:00:31.000Z',
    ],
    ['until=2026-07-01', () => false],
    [
      `file_id=71&user_id=${String(USERS.editor)}&action=deal_file.download&since=2026-07-01T10:00:10Z`,
      (e: AccessEntry) =>
        e.fileId === 71 &&
        e.userId === USERS.editor &&
        e.action === 'deal_file.download' &&
        e.at >= '2026-07-01T10:00:10.000Z',
    ],
  ])('filters by %s, every page keeping the filter', async (query, keep) => {
    await world();
    const expected = bodies(NEWEST_FIRST.filter(keep));
    const { entries, links } = await everyPage(accessUrl(GROUP, DEAL, `?${query}&limit=2`));
    expect(entries).toEqual(expected);
    expect(links).toHaveLength(Math.max(0, Math.ceil(expected.length / 2) - 1));
    for (const link of links) {
      const params = new URL(link, 'http://stage').searchParams;
      const sent = new URLSearchParams(query);
      for (const name of ['file_id', 'user_id', 'action']) {
        expect(params.get(name), link).toBe(sent.get(name));
      }
      for (const name of ['since', 'until']) {
        const value = sent.get(name);
        expect(params.get(name), link).toBe(value === null ? null : new Date(value).toISOString());
      }
    }
  });

  /** Pydantic's wording of the actions: `'a', 'b' or 'c'`. */
  const ACTIONS_EXPECTED = `${ACCESS_ACTIONS.slice(0, -1)
    .map((action) => `'${action}'`)
    .join(', ')} or 'member.remove'`;
  const queryError = (name: string, input: string) => ({
    type: 'datetime_from_date_parsing',
    loc: ['query', name],
    msg: 'Input should be a valid datetime or date, expected an ISO 8601 date, or a date and time with its time zone',
    input,
    ctx: { error: 'expected an ISO 8601 date, or a date and time with its time zone' },
  });
  it.each([
    [
      '?action=deal_file.open',
      {
        type: 'enum',
        loc: ['query', 'action'],
        msg: `Input should be ${ACTIONS_EXPECTED}`,
        input: 'deal_file.open',
        ctx: { expected: ACTIONS_EXPECTED },
      },
    ],
    ['?since=yesterday', queryError('since', 'yesterday')],
    ['?until=2026-07-01T10:00:00', queryError('until', '2026-07-01T10:00:00')],
    [
      '?file_id=abc',
      {
        type: 'int_parsing',
        loc: ['query', 'file_id'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'abc',
      },
    ],
    [
      '?limit=0',
      {
        type: 'greater_than',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than 0',
        input: '0',
        ctx: { gt: 0 },
      },
    ],
    [
      '?cursor=bm90IGEgcG9zaXRpb24h',
      {
        type: 'value_error',
        loc: ['query', 'cursor'],
        msg: 'Value error, not a cursor this API gave; start again without one',
        input: 'bm90IGEgcG9zaXRpb24h',
        ctx: { error: {} },
      },
    ],
  ])('refuses %s with FastAPI’s 422, storing nothing', async (query, error) => {
    await world();
    await expectRefusal(accessUrl(GROUP, DEAL, query), USERS.editor, 422, validationBody(error));
  });
});
