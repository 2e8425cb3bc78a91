import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import type { AccessEntry } from '#shared/access-trail/access-entry.ts';
import { trailQueries } from '#shared/access-reports/adapters/dynamo-trail-queries.ts';
import type {
  TrailFilter,
  TrailPage,
  TrailPageRequest,
  TrailQueries,
} from '#shared/access-reports/trail-queries.ts';
import { entryAt, requestOf, seedTrail, timesFrom } from '#test/support/trail-seed.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint } = standInClients();
const tableName = `trail-queries-${randomUUID().slice(0, 8)}`;
const sources = { documents: () => dynamodb, TRAIL_TABLE_NAME: trailTableNameOf(tableName) };
const queries = trailQueries(sources);

const DEAL = { groupId: 3, dealId: 5 };
const T0 = '2026-05-04T03:00:00.000Z';

/** Deal 3/5: 30 downloads a second apart, users 7 and 8 and files 11 and 12 by turns. */
const downloads = timesFrom(T0, 30).map((at, n) =>
  entryAt(
    at,
    { action: 'deal_file.download', outcome: 'allowed', ...DEAL, fileId: n % 2 === 0 ? 11 : 12 },
    requestOf(n % 2 === 0 ? 7 : 8),
  ),
);
/** A refusal, filed by its minute: its key sorts before every other entry of 03:00. */
const refusal = entryAt(
  '2026-05-04T03:00:12.500Z',
  { action: 'deal_file.download', outcome: 'refused', status: 404, ...DEAL, fileId: 11 },
  requestOf(9),
);
const token = entryAt(
  '2026-05-04T03:00:30.000Z',
  {
    action: 'realtime_token.issue',
    outcome: 'allowed',
    ...DEAL,
    roomId: 'local:v1:group:3:deal:5',
  },
  requestOf(7),
);
/** User 7's file 40: their own downloads, and the copy the operator made of it into deal 3/5. */
const ownDownloads = timesFrom('2026-05-04T01:00:00.000Z', 5, 60_000).map((at) =>
  entryAt(at, { action: 'user_file.download', outcome: 'allowed', fileId: 40 }, requestOf(7)),
);
const copy = entryAt('2026-05-04T01:02:30.000Z', {
  action: 'deal_file.add',
  outcome: 'allowed',
  ...DEAL,
  fileId: 11,
  sourceFileId: 40,
  sourceUserId: 7,
});

/** The deal's trail as its key orders it, newest first. */
const DEAL_NEWEST_FIRST = [token, ...downloads.toReversed(), refusal, copy];

const otherDeal = timesFrom('2026-05-04T03:00:00.500Z', 3, 10_000).map((at) =>
  entryAt(at, {
    action: 'deal_file.update',
    outcome: 'allowed',
    groupId: 3,
    dealId: 6,
    fileId: 13,
  }),
);
const membership = timesFrom('2026-05-04T02:59:00.000Z', 2, 45_000).map((at, n) =>
  entryAt(at, {
    action: 'member.add',
    outcome: 'allowed',
    groupId: 3,
    memberId: 20 + n,
    role: 'viewer',
  }),
);
const idsOf = (entries: readonly AccessEntry[]) => entries.map((entry) => entry.id);

/** Every page of a newest-first read, followed to its end. */
async function allPages(
  read: (page: TrailPageRequest) => Promise<TrailPage>,
  limit: number,
): Promise<TrailPage[]> {
  const pages: TrailPage[] = [];
  let after: string | undefined;
  do {
    const page = await read({ limit, ...(after === undefined ? {} : { after }) });
    pages.push(page);
    after = page.next;
  } while (after !== undefined);
  return pages;
}
const entriesOfPages = (pages: readonly TrailPage[]) =>
  pages.flatMap((page) => page.entries.map(({ entry }) => entry));
const dealEntries = async (filter: TrailFilter, on: TrailQueries = queries) =>
  entriesOfPages(await allPages((page) => on.dealPage(DEAL, filter, page), 1000));

beforeAll(async () => {
  await ensureTable(dynamodbEndpoint, tableName);
  await seedTrail(dynamodb, sources.TRAIL_TABLE_NAME, [
    ...downloads,
    refusal,
    token,
    ...otherDeal,
    ...membership,
    ...ownDownloads,
    copy,
  ]);
});
afterAll(() => {
  dynamodb.destroy();
});

describe("the trail's queries on DynamoDB Local", () => {
  it("pages a deal's entries newest first, each once, with a next page exactly while more follow", async () => {
    const pages = await allPages((page) => queries.dealPage(DEAL, {}, page), 7);
    expect(pages.map((page) => page.entries.length)).toEqual([7, 7, 7, 7, 5]);
    expect(idsOf(entriesOfPages(pages))).toEqual(idsOf(DEAL_NEWEST_FIRST));
    expect(entriesOfPages(pages)[0]).toEqual(token);
    // A page that ends the trail exactly has no next.
    expect((await queries.dealPage(DEAL, {}, { limit: 33 })).next).toBeUndefined();
    expect((await queries.dealPage(DEAL, {}, { limit: 32 })).next).toBeDefined();
  });

  it('filters by file, acting user, actions and outcome', async () => {
    const expected = (keep: (entry: AccessEntry) => boolean) =>
      idsOf(DEAL_NEWEST_FIRST.filter(keep));
    expect(idsOf(await dealEntries({ fileId: 12 }))).toEqual(expected((e) => e.fileId === 12));
    expect(idsOf(await dealEntries({ userId: 8 }))).toEqual(expected((e) => e.userId === 8));
    expect(idsOf(await dealEntries({ actions: ['realtime_token.issue'] }))).toEqual([token.id]);
    expect(idsOf(await dealEntries({ outcome: 'refused' }))).toEqual([refusal.id]);
    expect(idsOf(await dealEntries({ fileId: 11, userId: 9 }))).toEqual([refusal.id]);
    expect(await dealEntries({ userId: 99 })).toEqual([]);
  });

  it("holds a window to the entries' own times, a refusal filed by its minute included", async () => {
    const within = (since: string, until: string) =>
      idsOf(DEAL_NEWEST_FIRST.filter((e) => e.at >= since && e.at < until));
    const cases = [
      ['2026-05-04T03:00:10.000Z', '2026-05-04T03:00:20.000Z'],
      ['2026-05-04T03:00:13.000Z', '2026-05-04T03:00:20.000Z'],
      ['2026-05-04T03:00:00.000Z', '2026-05-04T03:00:12.000Z'],
      ['2026-05-04T03:00:12.500Z', '2026-05-04T03:00:12.501Z'],
      ['2026-05-04T02:00:00.000Z', '2026-05-04T04:00:00.000Z'],
    ] as const;
    for (const [since, until] of cases) {
      expect(idsOf(await dealEntries({ since, until })), `${since} to ${until}`).toEqual(
        within(since, until),
      );
    }
    expect(idsOf(await dealEntries({ since: '2026-05-04T03:00:29.000Z' }))).toEqual(
      idsOf([token, downloads[29] as AccessEntry]),
    );
    expect(idsOf(await dealEntries({ until: '2026-05-04T03:00:01.000Z' }))).toEqual(
      idsOf([downloads[0] as AccessEntry, copy]),
    );
    // An empty or upside-down window reads nothing.
    expect(await dealEntries({ since: T0, until: T0 })).toEqual([]);
    expect(await dealEntries({ since: '2026-05-04T03:01:00.000Z', until: T0 })).toEqual([]);
  });

  it('reads a bounded number of items a page: a filter matching little gives short pages that go on', async () => {
    const frugal = trailQueries(sources, 10);
    const pages = await allPages((page) => frugal.dealPage(DEAL, { userId: 9 }, page), 5);
    // 33 entries, 10 read a page: four pages, the match (the next to oldest) on the last.
    expect(pages.map((page) => page.entries.length)).toEqual([0, 0, 0, 1]);
    expect(pages.slice(0, 3).every((page) => page.next !== undefined)).toBe(true);
    expect(idsOf(entriesOfPages(pages))).toEqual([refusal.id]);
    // Unfiltered, a page reads what it keeps, and a full budget's page still ends exactly.
    const plain = await allPages((page) => frugal.dealPage(DEAL, {}, page), 5);
    expect(idsOf(entriesOfPages(plain))).toEqual(idsOf(DEAL_NEWEST_FIRST));
  });

  it('goes on from a position outside a changed window, or a made-up one, without failing', async () => {
    const first = await queries.dealPage(DEAL, {}, { limit: 5 });
    const after = first.next as string;
    // Newer than the window: it starts at the window's newest end.
    const newer = await queries.dealPage(
      DEAL,
      { until: '2026-05-04T03:00:20.000Z' },
      { limit: 2, after },
    );
    expect(idsOf(newer.entries.map(({ entry }) => entry))).toEqual(
      idsOf([downloads[19], downloads[18]] as AccessEntry[]),
    );
    // Older than the window: nothing is left.
    expect(
      await queries.dealPage(DEAL, { since: '2026-05-04T03:01:00.000Z' }, { limit: 2, after }),
    ).toEqual({ entries: [] });
    // Text no page gave starts wherever it falls in the deal's own trail.
    const madeUp = await queries.dealPage(DEAL, {}, { limit: 40, after: 'zzz' });
    expect(madeUp.entries).toHaveLength(DEAL_NEWEST_FIRST.length);
  });

  it("pages a user file's own entries, newest first, without the copies made of it", async () => {
    const pages = await allPages((page) => queries.userFilePage(40, page), 2);
    expect(pages.map((page) => page.entries.length)).toEqual([2, 2, 1]);
    expect(idsOf(entriesOfPages(pages))).toEqual(idsOf(ownDownloads.toReversed()));
    // A deal file's id: its entries are no user file's actions.
    expect(await queries.userFilePage(11, { limit: 10 })).toEqual({ entries: [] });
  });

  it('streams the entries filed under a file, filtered', async () => {
    const under = async (fileId: number, filter: TrailFilter) => {
      const found: AccessEntry[] = [];
      for await (const entry of queries.fileEntries(fileId, filter)) found.push(entry);
      return found;
    };
    expect(await under(40, { actions: ['deal_file.add'] })).toEqual([copy]);
    expect(idsOf(await under(40, {}))).toEqual(
      idsOf([...ownDownloads, copy].toSorted((a, b) => (a.at < b.at ? 1 : -1))),
    );
    expect(idsOf(await under(11, { actions: ['deal_file.download'], outcome: 'allowed' }))).toEqual(
      idsOf(downloads.filter((e) => e.fileId === 11).toReversed()),
    );
  });

  it("merges a group's trails oldest first, any window", async () => {
    const read = async (window: { since?: string; until?: string }) => {
      const found: AccessEntry[] = [];
      const scopes = [
        { kind: 'deal', ...DEAL },
        { kind: 'deal', groupId: 3, dealId: 6 },
        { kind: 'group', groupId: 3 },
      ] as const;
      for await (const entry of queries.entriesOf(scopes, window)) found.push(entry);
      return found;
    };
    const everything = [...DEAL_NEWEST_FIRST, ...otherDeal, ...membership];
    const byKey = (entries: readonly AccessEntry[]) =>
      entries.toSorted((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    expect(idsOf(await read({}))).toEqual(idsOf(byKey(everything)));
    const window = { since: '2026-05-04T02:59:30.000Z', until: '2026-05-04T03:00:15.000Z' };
    expect(idsOf(await read(window))).toEqual(
      idsOf(byKey(everything.filter((e) => e.at >= window.since && e.at < window.until))),
    );
  });
});

/** The order the trail's key gives: a refusal at its minute's start. */
const keyOf = (entry: AccessEntry) =>
  entry.outcome === 'refused' ? `${entry.at.slice(0, 16)}#refused` : `${entry.at}#${entry.id}`;
