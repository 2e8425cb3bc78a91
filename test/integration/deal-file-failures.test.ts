import { createHash, randomUUID } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { ensureTable, trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { DynamoAccessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { batchGetAll } from '#shared/storage/aws/batch-get.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { dealFileObjectKey, userFileObjectKey } from '#shared/storage/keys.ts';
import { addDealFile } from '#shared/deal-files/add-deal-file.ts';
import { deleteDealFile } from '#shared/deal-files/delete-deal-file.ts';
import {
  dealFileKey,
  DynamoDealFileRepository,
} from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { toDealFileItem } from '#shared/storage/file-items.ts';
import type { DealFileRepository } from '#shared/deal-files/deal-file-repository.ts';
import { updateDealFile } from '#shared/deal-files/update-deal-file.ts';
import {
  dealKey,
  DynamoGroupRepository,
  memberKey,
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import { AccessDenied, Conflict, NotFound } from '#shared/domain/outcome.ts';
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { dealFile } from '#test/support/deal-fixtures.ts';
import { failing, storedIn } from '#test/support/faults.ts';
import { putItems } from '#test/support/put-items.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, s3, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
const name = `deal-faults-${randomUUID().slice(0, 8)}`;
const stored = () => storedIn(dynamodb, s3, name);

// Changes write their access-trail entries beside them, to the trail's table (ensureTable).
const trail = { tableName: trailTableNameOf(name), retentionDays: 400 };
const dealFiles = new DynamoDealFileRepository(dynamodb, name, trail);
const accessTrail = new DynamoAccessTrail(dynamodb, trail);
const groups = new DynamoGroupRepository(dynamodb, name);
const blobs = new S3BlobStore(s3, name);
const addPorts = {
  fileIds: new DynamoBlockIdAllocator(dynamodb, name, { sequence: 'file', blockSize: 1 }),
  blobs,
  groups,
  dealFiles,
  userFiles: new DynamoUserFileRepository(dynamodb, name),
  scanning: false,
};

const EDITOR = 9;
/** The editor's requests, as the trail records who asked. */
const EDITING = { userId: EDITOR, requestId: 'request-of-the-editor', sourceIp: '127.0.0.1' };
const CREATED = '2026-06-01T00:00:00.000Z';

/** Group g with deal 1, user 9 its editor, and one file (id g) with its object. */
async function seed(g: number) {
  const file = dealFile(g, 1, g);
  await putItems(dynamodb, name, [
    toGroupItem({ id: g, name: 'g', createdAt: CREATED }),
    toMemberItem({ groupId: g, userId: EDITOR, role: 'editor' }),
    toDealItem({ groupId: g, id: 1, name: 'd', createdAt: CREATED }),
    toDealFileItem(file),
  ]);
  await s3.send(
    new PutObjectCommand({ Bucket: name, Key: dealFileObjectKey(g, 1, g), Body: 'bytes' }),
  );
  return file;
}

/** Counts the DynamoDB calls a piece of work makes. */
async function countCalls(client: DynamoDBDocumentClient, work: () => Promise<unknown>) {
  const calls: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  try {
    await work();
  } finally {
    client.middlewareStack.remove('countCalls');
  }
  return calls;
}

beforeAll(async () => {
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
});

describe('deal-file access', () => {
  it('reads membership, deal and file in one BatchGetItem', async () => {
    const file = await seed(1);
    const calls = await countCalls(dynamodb, async () => {
      expect(await dealFiles.access(EDITOR, { groupId: 1, dealId: 1 }, file.id)).toEqual({
        role: 'editor',
        file,
      });
    });
    expect(calls).toEqual(['BatchGetItemCommand']);
  });

  it('grants no role in a deal the group does not hold, even to a member', async () => {
    await seed(2);
    expect(await dealFiles.access(EDITOR, { groupId: 2, dealId: 5 })).toEqual({
      role: undefined,
      file: undefined,
    });
  });

  it('asks again for keys DynamoDB leaves unprocessed, until every key has its answer', async () => {
    const file = await seed(3);
    let first = true;
    const throttled = new Proxy(dynamodb, {
      get: (target, property, receiver) => {
        if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
        return async (command: {
          input: { RequestItems: Record<string, { Keys: unknown[] }> };
        }) => {
          if (!first) return target.send(command as never);
          first = false;
          // As under throttling: only the first key is served, the rest come back unprocessed.
          const keys = command.input.RequestItems[name]?.Keys ?? [];
          const served = (await target.send(command as never)) as {
            Responses: Record<string, unknown[]>;
          };
          return {
            Responses: { [name]: (served.Responses[name] ?? []).slice(0, 1) },
            UnprocessedKeys: { [name]: { Keys: keys.slice(1) } },
          };
        };
      },
    });
    const items = await batchGetAll(throttled, name, [
      dealKey(3, 1),
      dealFileKey({ groupId: 3, dealId: 1 }, file.id),
    ]);
    expect(items).toHaveLength(2);
    expect(first).toBe(false);
  });

  it('reads more than 100 keys in calls of 100', async () => {
    const keys = Array.from({ length: 250 }, (_, i) => dealFileKey({ groupId: 4, dealId: 1 }, i));
    const calls = await countCalls(dynamodb, () => batchGetAll(dynamodb, name, keys));
    expect(calls).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
  });
});

/**
 * The repository, with one change made by someone else right after the first access read:
 * the race a conditional write must win.
 */
function racedAfterFirstRead(change: () => Promise<unknown>): DealFileRepository {
  let raced = false;
  return new Proxy(dealFiles, {
    get: (target, property, receiver) => {
      if (property !== 'access') return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<DealFileRepository['access']>) => {
        const access = await target.access(...args);
        if (!raced) {
          raced = true;
          await change();
        }
        return access;
      };
    },
  });
}

const remove = (key: Record<string, string>) => () =>
  dynamodb.send(new DeleteCommand({ TableName: name, Key: key }));
const demote = (groupId: number) => () =>
  putItems(dynamodb, name, [toMemberItem({ groupId, userId: EDITOR, role: 'viewer' })]);

describe('a change between the access read and the write: the write holds to what was read', () => {
  const dealFileItems = async (groupId: number) =>
    (await stored()).items.filter((i) => i.PK === `GROUP#${groupId}#DEAL#1`);

  it.each([
    [
      'the file deleted',
      10,
      (g: number) => remove(dealFileKey({ groupId: g, dealId: 1 }, g)),
      NotFound,
    ],
    ['the editor removed', 11, (g: number) => remove(memberKey(g, EDITOR)), NotFound],
    ['the editor made a viewer', 12, demote, AccessDenied],
    ['the deal removed', 13, (g: number) => remove(dealKey(g, 1)), NotFound],
  ] as const)(
    'PUT with %s → refused as now true, file not written',
    async (_, g, race, refusal) => {
      const file = await seed(g);
      const before = await dealFileItems(g);
      await expect(
        updateDealFile(
          { dealFiles: racedAfterFirstRead(race(g)), accessTrail },
          {
            requester: EDITING,
            deal: { groupId: g, dealId: 1 },
            fileId: file.id,
            changes: { type: 'full' },
          },
        ),
      ).rejects.toBeInstanceOf(refusal);
      expect(await dealFileItems(g)).toEqual(_ === 'the file deleted' ? [] : before);
    },
  );

  it('DELETE by an editor made a viewer meanwhile → 403, record and object kept', async () => {
    const file = await seed(14);
    const before = await stored();
    await expect(
      deleteDealFile(
        { dealFiles: racedAfterFirstRead(demote(14)), blobs, accessTrail },
        { requester: EDITING, deal: { groupId: 14, dealId: 1 }, fileId: file.id },
      ),
    ).rejects.toBeInstanceOf(AccessDenied);
    const after = await stored();
    expect(after.objects).toEqual(before.objects);
    expect(after.items.filter((i) => i.PK === 'GROUP#14#DEAL#1')).toHaveLength(1);
  });
});

describe('delete: record first, then the object', () => {
  it('keeps record and object when the record delete fails', async () => {
    const file = await seed(20);
    const before = await stored();
    await expect(
      deleteDealFile(
        { dealFiles: failing(dealFiles, 'delete'), blobs, accessTrail },
        { requester: EDITING, deal: { groupId: 20, dealId: 1 }, fileId: file.id },
      ),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
  });

  it('puts the record back and fails when the object delete fails: nothing changed', async () => {
    const file = await seed(21);
    const before = await stored();
    await expect(
      deleteDealFile(
        { dealFiles: dealFiles, blobs: failing(blobs, 'delete'), accessTrail },
        { requester: EDITING, deal: { groupId: 21, dealId: 1 }, fileId: file.id },
      ),
    ).rejects.toThrow('injected: delete failed');
    expect(await stored()).toEqual(before);
    // A retry, with S3 back, finishes it.
    await deleteDealFile(
      { dealFiles: dealFiles, blobs, accessTrail },
      { requester: EDITING, deal: { groupId: 21, dealId: 1 }, fileId: file.id },
    );
    const after = await stored();
    expect(after.items.some((i) => i.PK === 'GROUP#21#DEAL#1')).toBe(false);
    expect(after.objects).not.toContain(dealFileObjectKey(21, 1, file.id));
  });

  it('leaves the bytes to reconcile only when the record cannot come back either', async () => {
    const file = await seed(22);
    await expect(
      deleteDealFile(
        { dealFiles: failing(dealFiles, 'create'), blobs: failing(blobs, 'delete'), accessTrail },
        { requester: EDITING, deal: { groupId: 22, dealId: 1 }, fileId: file.id },
      ),
    ).rejects.toThrow('injected: delete failed');
    const after = await stored();
    expect(after.items.some((i) => i.PK === 'GROUP#22#DEAL#1')).toBe(false);
    expect(after.objects).toContain(dealFileObjectKey(22, 1, file.id));
  });
});

describe('adding a deal file leaves nothing behind, whichever step fails', () => {
  const bytes = {
    kind: 'bytes',
    content: Buffer.from('deck'),
    contentType: 'application/pdf',
  } as const;

  it('writes no record when the bytes fail to store', async () => {
    await seed(30);
    const before = await stored();
    await expect(
      addDealFile(
        { ...addPorts, blobs: failing(blobs, 'put') },
        { deal: { groupId: 30, dealId: 1 }, source: bytes, name: 'a.pdf' },
      ),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
  });

  it('deletes the bytes when the record fails to write', async () => {
    await seed(31);
    const before = await stored();
    await expect(
      addDealFile(
        { ...addPorts, dealFiles: failing(dealFiles, 'create') },
        { deal: { groupId: 31, dealId: 1 }, source: bytes, name: 'a.pdf' },
      ),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
  });

  it('deletes the bytes when the deal goes between the check and the record', async () => {
    await seed(32);
    const vanishing = {
      getDeal: async (groupId: number, dealId: number) => {
        const deal = await groups.getDeal(groupId, dealId);
        await dynamodb.send(new DeleteCommand({ TableName: name, Key: dealKey(groupId, dealId) }));
        return deal;
      },
    };
    const before = await stored();
    await expect(
      addDealFile(
        { ...addPorts, groups: vanishing },
        { deal: { groupId: 32, dealId: 1 }, source: bytes, name: 'a.pdf' },
      ),
    ).rejects.toThrow('deal 1 does not exist in group 32');
    const after = await stored();
    expect(after.objects).toEqual(before.objects);
    expect(after.items.filter((i) => i.PK === 'GROUP#32#DEAL#1')).toEqual(
      before.items.filter((i) => i.PK === 'GROUP#32#DEAL#1'),
    );
  });

  /** A call that does its work, then loses its answer: the fault a timeout makes. */
  const answerLost = <T extends object>(target: T, method: keyof T): T =>
    new Proxy(target, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver) as unknown;
        if (property !== method || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          throw new Error(`injected: the answer of ${String(method)} was lost`);
        };
      },
    });

  it('deletes bytes a copy stored before its answer was lost', async () => {
    await seed(33);
    await putItems(dynamodb, name, [
      toUserFileItem({
        id: 3301,
        userId: 42,
        name: 'u.pdf',
        type: 'deck',
        createdAt: CREATED,
        updatedAt: null,
        isArchived: false,
        filesize: 5,
        location: null,
      }),
    ]);
    await s3.send(
      new PutObjectCommand({ Bucket: name, Key: userFileObjectKey(42, 3301), Body: 'bytes' }),
    );
    const before = await stored();
    await expect(
      addDealFile(
        { ...addPorts, blobs: answerLost(blobs, 'copy') },
        {
          deal: { groupId: 33, dealId: 1 },
          source: { kind: 'user-file', userId: 42, fileId: 3301 },
        },
      ),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
  });

  it("refuses a user file whose stored bytes are not its recorded SHA-256's, storing nothing", async () => {
    await seed(35);
    const recorded = Buffer.from('the bytes that were recorded');
    const userFile = {
      id: 3501,
      userId: 43,
      name: 'u.pdf',
      type: 'deck' as const,
      createdAt: CREATED,
      updatedAt: null,
      isArchived: false,
      filesize: recorded.length,
      location: null,
      sha256: createHash('sha256').update(recorded).digest('base64'),
    };
    await putItems(dynamodb, name, [toUserFileItem(userFile)]);
    const key = userFileObjectKey(43, 3501);
    const add = () =>
      addDealFile(addPorts, {
        deal: { groupId: 35, dealId: 1 },
        source: { kind: 'user-file', userId: 43, fileId: 3501 },
      });
    // Other bytes under the file's key than the ones its digest was recorded for.
    await s3.send(new PutObjectCommand({ Bucket: name, Key: key, Body: 'other bytes, same key' }));
    const before = await stored();
    const refusal = await add().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Conflict);
    expect(refusal).toMatchObject({
      message:
        "user 43's file 3501 has other bytes in the bucket than its recorded SHA-256 names; nothing was attached",
    });
    expect(await stored()).toEqual(before);

    // With its own bytes back, the copy is attached, carrying the digest on.
    await s3.send(new PutObjectCommand({ Bucket: name, Key: key, Body: recorded }));
    expect(await add()).toMatchObject({ name: 'u.pdf', sha256: userFile.sha256 });
  });

  it('keeps the bytes when the record landed but its answer was lost: record and bytes agree', async () => {
    await seed(34);
    await expect(
      addDealFile(
        { ...addPorts, dealFiles: answerLost(dealFiles, 'create') },
        { deal: { groupId: 34, dealId: 1 }, source: bytes, name: 'a.pdf' },
      ),
    ).rejects.toThrow('injected');
    const after = await stored();
    const records = after.items.filter((i) => i.PK === 'GROUP#34#DEAL#1' && i.id !== 34);
    expect(records).toHaveLength(1);
    expect(after.objects).toContain(dealFileObjectKey(34, 1, Number(records[0]?.id)));
  });
});
