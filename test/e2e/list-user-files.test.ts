import { describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

const LIST = '/api/v1/user/me/file';

const file = (userId: number, id: number, overrides: Partial<UserFile> = {}): UserFile => ({
  id,
  userId,
  name: `report ${id}.pdf`,
  type: 'financials',
  createdAt: new Date(Date.UTC(2026, 5, 1) + id * 1000).toISOString(),
  updatedAt: null,
  isArchived: false,
  filesize: 1000 + id,
  location: `users/${userId}/files/${id}`,
  ...overrides,
});

describe('GET /api/v1/user/me/file', () => {
  it('answers [] for a user with no files', async () => {
    const response = await stage().request(LIST, { as: 500 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual([]);
  });

  it('returns each file in exactly the contract UserFile shape', async () => {
    await stage().put([
      toUserFileItem(
        file(501, 1, {
          name: 'Déck – final (2).pdf',
          type: null,
          updatedAt: '2026-06-02T10:00:00.000Z',
          isArchived: true,
        }),
      ),
    ]);
    const response = await stage().request(LIST, { as: 501 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      {
        name: 'Déck – final (2).pdf',
        id: 1,
        user_id: 501,
        type: null,
        created_at: '2026-06-01T00:00:01.000Z',
        updated_at: '2026-06-02T10:00:00.000Z',
        is_archived: true,
        filesize: 1001,
        location: 'users/501/files/1',
      },
    ]);
  });

  it("two users never see each other's files", async () => {
    await stage().put([file(601, 11), file(601, 12), file(602, 13)].map(toUserFileItem));
    const first = (await (await stage().request(LIST, { as: 601 })).json()) as {
      id: number;
      user_id: number;
    }[];
    const second = (await (await stage().request(LIST, { as: 602 })).json()) as {
      id: number;
      user_id: number;
    }[];
    expect(first.map((f) => [f.id, f.user_id])).toEqual([
      [12, 601],
      [11, 601],
    ]);
    expect(second.map((f) => [f.id, f.user_id])).toEqual([[13, 602]]);
  });

  it('returns 2,500 files (more than one DynamoDB page) whole, newest first', async () => {
    const files = Array.from({ length: 2500 }, (_, i) =>
      file(700, i + 1, { name: `${'long name '.repeat(50)}${i + 1}.xlsx` }),
    );
    await stage().put(files.map(toUserFileItem));
    const response = await stage().request(LIST, { as: 700 });
    expect(response.status).toBe(200);
    const listed = (await response.json()) as { id: number; created_at: string }[];
    expect(listed).toHaveLength(2500);
    expect(listed.map((f) => f.id)).toEqual(files.map((f) => f.id).reverse());
  });

  it('changes nothing', async () => {
    const before = await stage().items();
    await stage().request(LIST, { as: 601 });
    expect(await stage().items()).toEqual(before);
    expect(await stage().objectKeys()).toEqual([]);
  });
});

/** The `cursor` of a page's `Link: <…>; rel="next"` header, or undefined on the last page. */
function nextOf(response: Response): string | undefined {
  const link = response.headers.get('link');
  if (link === null) return undefined;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match).not.toBeNull();
  return match?.[1];
}

describe('GET /api/v1/user/me/file in pages (our extension)', () => {
  it('walks every file newest first through the Link headers, none twice', async () => {
    const files = Array.from({ length: 7 }, (_, i) => file(800, i + 1));
    await stage().put(files.map(toUserFileItem));
    const seen: number[] = [];
    let next: string | undefined = `${LIST}?limit=3`;
    let pages = 0;
    while (next !== undefined) {
      const response = await stage().request(next, { as: 800 });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { id: number }[];
      expect(page.length).toBeLessThanOrEqual(3);
      seen.push(...page.map((f) => f.id));
      next = nextOf(response);
      if (next !== undefined) expect(next).toMatch(/^\/api\/v1\/user\/me\/file\?limit=3&cursor=/);
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('answers every file with no Link when no paging is asked for', async () => {
    await stage().put([file(801, 1), file(801, 2)].map(toUserFileItem));
    const response = await stage().request(LIST, { as: 801 });
    expect(response.headers.get('link')).toBeNull();
    expect(((await response.json()) as unknown[]).length).toBe(2);
  });

  it('pages from a cursor alone, at the largest page size', async () => {
    await stage().put([file(802, 1), file(802, 2), file(802, 3)].map(toUserFileItem));
    const first = await stage().request(`${LIST}?limit=1`, { as: 802 });
    const cursor = new URL(nextOf(first) ?? '', 'http://x').searchParams.get('cursor');
    const rest = await stage().request(`${LIST}?cursor=${cursor ?? ''}`, { as: 802 });
    expect(((await rest.json()) as { id: number }[]).map((f) => f.id)).toEqual([2, 1]);
    expect(rest.headers.get('link')).toBeNull();
  });

  it('gzips the answer for a client that accepts it, and not for one that does not', async () => {
    await stage().put(Array.from({ length: 50 }, (_, i) => file(803, i + 1)).map(toUserFileItem));
    const zipped = await stage().request(LIST, {
      as: 803,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    const plain = await stage().request(LIST, {
      as: 803,
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    // fetch undoes the coding: both bodies are the same list.
    expect(await zipped.json()).toEqual(await plain.json());
  });

  it('reads the last of repeated values, as FastAPI does, where API Gateway joins them', async () => {
    await stage().put([file(805, 1), file(805, 2), file(805, 3)].map(toUserFileItem));
    const response = await stage().request(`${LIST}?limit=5000&limit=2`, { as: 805 });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: number }[]).map((f) => f.id)).toEqual([3, 2]);
  });

  it.each([
    [
      'limit=0',
      {
        type: 'greater_than',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than 0',
        input: '0',
        ctx: { gt: 0 },
      },
    ],
    [
      'limit=1001',
      {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 1000',
        input: '1001',
        ctx: { le: 1000 },
      },
    ],
    [
      'limit=ten',
      {
        type: 'int_parsing',
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'ten',
      },
    ],
    [
      'cursor=MjAyNi0wNi0wMVQwOTozMDowMC4wMDBaIzA',
      {
        type: 'value_error',
        loc: ['query', 'cursor'],
        msg: 'Value error, not a cursor this API gave; start again without one',
        input: 'MjAyNi0wNi0wMVQwOTozMDowMC4wMDBaIzA',
        ctx: { error: {} },
      },
    ],
  ])('refuses %s with a 422 naming it, and lists nothing', async (query, error) => {
    const before = await stage().items();
    const response = await stage().request(`${LIST}?${query}`, { as: 804 });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ detail: [error] });
    expect(await stage().items()).toEqual(before);
  });
});
