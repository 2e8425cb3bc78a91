import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { putItems } from '#test/support/put-items.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint } = standInClients();
const tableName = `repo-${randomUUID().slice(0, 8)}`;
let queries = 0;
dynamodb.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName === 'QueryCommand') queries++;
    return next(args);
  },
  { step: 'initialize', name: 'countQueries' },
);
const repository = new DynamoUserFileRepository(dynamodb, tableName);

const file = (userId: number, id: number, nameLength = 20): UserFile => ({
  id,
  userId,
  name: `${String(id).padStart(6, '0')}-${'n'.repeat(nameLength)}.pdf`,
  type: 'deck',
  createdAt: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
  updatedAt: null,
  isArchived: false,
  filesize: id,
  location: `users/${userId}/files/${id}`,
});

const store = (files: readonly UserFile[]) =>
  putItems(dynamodb, tableName, files.map(toUserFileItem));

beforeAll(async () => {
  await ensureTable(dynamodbEndpoint, tableName);
});
afterAll(() => {
  dynamodb.destroy();
});

const ids = (page: { readonly items: readonly UserFile[] }) => page.items.map((f) => f.id);

describe('DynamoUserFileRepository on DynamoDB Local', () => {
  it('finds nothing for a user with no files', async () => {
    expect(await repository.listByOwner(999)).toEqual({ items: [] });
    expect(await repository.listByOwner(999, { page: { limit: 10 } })).toEqual({ items: [] });
  });

  it('reads every page of a partition larger than one 1 MB Query page, newest first', async () => {
    // 2,500 records of about 600 bytes: some 1.5 MB, so at least two pages.
    const files = Array.from({ length: 2500 }, (_, i) => file(10, i + 1, 500));
    await store(files);
    queries = 0;
    const listed = await repository.listByOwner(10);
    expect(queries).toBeGreaterThan(1);
    expect(listed.next).toBeUndefined();
    expect(ids(listed)).toEqual(files.map((f) => f.id).reverse());
    expect(listed.items.find((f) => f.id === 1234)).toEqual(files[1233]);
  });

  it("reads only the owner's partition", async () => {
    await store([file(20, 1), file(20, 2), file(21, 3)]);
    expect(ids(await repository.listByOwner(20))).toEqual([2, 1]);
    expect(ids(await repository.listByOwner(21))).toEqual([3]);
  });

  it('orders files of the same millisecond by id, as numbers, not as text', async () => {
    const at = '2026-03-01T00:00:00.000Z';
    const same = [9, 10, 100, 11].map((id) => ({ ...file(30, id), createdAt: at }));
    await store([...same, { ...file(30, 5), createdAt: '2026-03-01T00:00:00.001Z' }]);
    expect(ids(await repository.listByOwner(30))).toEqual([5, 100, 11, 10, 9]);
  });

  it('pages newest first: each page after the last file of the one before, none twice', async () => {
    const files = Array.from({ length: 7 }, (_, i) => file(40, i + 1));
    await store(files);
    const first = await repository.listByOwner(40, { page: { limit: 3 } });
    expect(ids(first)).toEqual([7, 6, 5]);
    expect(first.next).toEqual({ createdAt: files[4]?.createdAt, id: 5 });
    const second = await repository.listByOwner(40, { page: { limit: 3, after: first.next } });
    expect(ids(second)).toEqual([4, 3, 2]);
    const last = await repository.listByOwner(40, { page: { limit: 3, after: second.next } });
    // The last page says so itself: no next position, and so no empty page after it.
    expect(last).toEqual({ items: [files[0]] });
    const exact = await repository.listByOwner(40, { page: { limit: 7 } });
    expect(exact.next).toBeUndefined();
  });

  it('pages on from a position whose file has since gone', async () => {
    await store(Array.from({ length: 4 }, (_, i) => file(41, i + 1)));
    const gone = file(41, 3);
    const rest = await repository.listByOwner(41, { page: { limit: 10, after: gone } });
    expect(ids(rest)).toEqual([2, 1]);
  });

  it('stops reading when the listing is abandoned, between pages or before the first', async () => {
    await store(Array.from({ length: 2500 }, (_, i) => file(50, i + 1, 500)));
    const before = new AbortController();
    before.abort(new Error('the function timed out'));
    queries = 0;
    await expect(repository.listByOwner(50, { signal: before.signal })).rejects.toThrow(
      'the function timed out',
    );
    expect(queries).toBe(0);

    // Abandoned while the first page is read: no second page is asked for.
    const during = new AbortController();
    queries = 0;
    dynamodb.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        during.abort(new Error('the function timed out'));
        return result;
      },
      { step: 'deserialize', name: 'abandonOnFirstQuery' },
    );
    try {
      // The SDK's own abort, or the signal's reason: either way the listing ends there.
      await expect(repository.listByOwner(50, { signal: during.signal })).rejects.toThrow(
        /Request aborted|the function timed out/,
      );
    } finally {
      dynamodb.middlewareStack.remove('abandonOnFirstQuery');
    }
    expect(queries).toBe(1);
  });
});
