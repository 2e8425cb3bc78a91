import { describe, expect, it } from 'vitest';
import { listUserFiles } from '#shared/user-files/list-user-files.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { toUserFileBody } from '#shared/schemas/user-file-response.ts';

const file = (id: number, createdAt: string): UserFile => ({
  id,
  userId: 1,
  name: `f${id}.pdf`,
  type: 'deck',
  createdAt,
  updatedAt: null,
  isArchived: false,
  filesize: 10,
  location: null,
});

describe('listUserFiles', () => {
  it('returns newest first, ids breaking ties', async () => {
    const stored = [
      file(1, '2026-01-01T00:00:00.000Z'),
      file(3, '2026-01-02T00:00:00.000Z'),
      file(2, '2026-01-02T00:00:00.000Z'),
      file(9, '2025-12-31T23:59:59.999Z'),
    ];
    const listed = await listUserFiles({ listByOwner: () => Promise.resolve([...stored]) }, 1);
    expect(listed.map((f) => f.id)).toEqual([3, 2, 1, 9]);
  });

  it('asks the repository for the caller only', async () => {
    const asked: number[] = [];
    await listUserFiles(
      {
        listByOwner: (userId) => {
          asked.push(userId);
          return Promise.resolve([]);
        },
      },
      42,
    );
    expect(asked).toEqual([42]);
  });

  it('shapes a file as the contract UserFile, with no field of ours', () => {
    expect(toUserFileBody(file(5, '2026-01-01T00:00:00.000Z'))).toEqual({
      name: 'f5.pdf',
      id: 5,
      user_id: 1,
      type: 'deck',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: null,
      is_archived: false,
      filesize: 10,
      location: null,
    });
  });
});
