import { describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/adapters/items/file-items.ts';
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
