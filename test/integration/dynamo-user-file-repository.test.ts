import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/emulators.ts';
import { DynamoUserFileRepository } from '#shared/adapters/dynamo-user-file-repository.ts';
import { toUserFileItem } from '#shared/adapters/items/file-items.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { putItems } from '#test/support/put-items.ts';
import { emulatorClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint } = emulatorClients();
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

describe('DynamoUserFileRepository on DynamoDB Local', () => {
  it('finds nothing for a user with no files', async () => {
    expect(await repository.listByOwner(999)).toEqual([]);
  });

  it('reads every page of a partition larger than one 1 MB Query page', async () => {
    // 2,500 records of about 600 bytes: some 1.5 MB, so at least two pages.
    const files = Array.from({ length: 2500 }, (_, i) => file(10, i + 1, 500));
    await store(files);
    queries = 0;
    const listed = await repository.listByOwner(10);
    expect(queries).toBeGreaterThan(1);
    expect(listed).toHaveLength(2500);
    expect(new Set(listed.map((f) => f.id)).size).toBe(2500);
    expect(listed.find((f) => f.id === 1234)).toEqual(files[1233]);
  });

  it("reads only the owner's partition", async () => {
    await store([file(20, 1), file(20, 2), file(21, 3)]);
    expect((await repository.listByOwner(20)).map((f) => f.id).sort()).toEqual([1, 2]);
    expect((await repository.listByOwner(21)).map((f) => f.id)).toEqual([3]);
  });
});
