import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import {
  newAccessEntry,
  OPERATOR,
  refusalSlot,
  type Requester,
} from '#shared/access-trail/access-entry.ts';
import {
  accessEntryPut,
  fromAccessEntryItem,
} from '#shared/access-trail/adapters/access-entry-item.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { DynamoDealFileRepository } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { dealFileDownloadLink } from '#shared/deal-files/deal-file-download.ts';
import { NotFound, TrailUnavailable } from '#shared/domain/outcome.ts';
import { transactWrite } from '#shared/storage/aws/transactions.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, s3, dynamodbEndpoint } = standInClients();
const tableName = `trail-${randomUUID().slice(0, 8)}`;
const trailTable = trailTableNameOf(tableName);
const RETENTION_DAYS = 400;
const trail = accessTrail({
  documents: () => dynamodb,
  TRAIL_TABLE_NAME: trailTable,
  ACCESS_TRAIL_RETENTION_DAYS: RETENTION_DAYS,
});

const AT = new Date('2026-05-04T03:02:01.234Z');
let ids = 0;
/** Ids whose first hex digit walks 0..f, so entries spread over every time shard. */
const stamp = {
  now: () => AT,
  newEntryId: () => (ids++ % 16).toString(16) + String(ids).padStart(31, '0'),
};
const requester: Requester = {
  userId: 7,
  requestId: 'Abc1dEf2GhI=',
  sourceIp: '203.0.113.9',
  userAgent: 'curl/8.5.0',
};

const all = async (): Promise<Record<string, unknown>[]> =>
  (await dynamodb.send(new ScanCommand({ TableName: trailTable, ConsistentRead: true }))).Items ??
  [];
const itemAt = async (scope: string, entry: string) =>
  (
    await dynamodb.send(
      new GetCommand({ TableName: trailTable, Key: { scope, entry }, ConsistentRead: true }),
    )
  ).Item;

beforeAll(async () => {
  await ensureTable(dynamodbEndpoint, tableName);
});
afterAll(() => {
  dynamodb.destroy();
});

describe('the access trail on DynamoDB Local', () => {
  it("writes a download's entry with exactly its attributes, filed by deal, day shard and file", async () => {
    const entry = newAccessEntry(
      { action: 'deal_file.download', outcome: 'allowed', groupId: 3, dealId: 5, fileId: 11 },
      requester,
      stamp,
    );
    await trail.record([entry]);
    expect(await itemAt('DEAL#3#5', `${entry.at}#${entry.id}`)).toEqual({
      scope: 'DEAL#3#5',
      entry: `2026-05-04T03:02:01.234Z#${entry.id}`,
      time_shard: `2026-05-04#${parseInt(entry.id[0] ?? '', 16)}`,
      file: 'FILE#11',
      // The entry's second plus 400 days: DynamoDB's TTL removes it after that.
      expiration: Math.floor(AT.getTime() / 1000) + RETENTION_DAYS * 86_400,
      at: '2026-05-04T03:02:01.234Z',
      id: entry.id,
      action: 'deal_file.download',
      outcome: 'allowed',
      actor: 'user',
      user_id: 7,
      group_id: 3,
      deal_id: 5,
      file_id: 11,
      request_id: 'Abc1dEf2GhI=',
      source_ip: '203.0.113.9',
      user_agent: 'curl/8.5.0',
    });
    expect(Date.UTC(2027, 5, 8, 3, 2, 1) / 1000).toBe(
      Math.floor(AT.getTime() / 1000) + RETENTION_DAYS * 86_400,
    );
  });

  it("files an operator's copy under the source file, in the deal's trail, with no request", async () => {
    const entry = newAccessEntry(
      {
        action: 'deal_file.add',
        outcome: 'allowed',
        groupId: 3,
        dealId: 5,
        fileId: 12,
        sourceFileId: 4,
        sourceUserId: 9,
      },
      OPERATOR,
      stamp,
    );
    await trail.record([entry]);
    const item = await itemAt('DEAL#3#5', `${entry.at}#${entry.id}`);
    expect(item).toMatchObject({ file: 'FILE#4', actor: 'operator', file_id: 12 });
    expect(Object.keys(item ?? {})).not.toEqual(
      expect.arrayContaining(['user_id', 'request_id', 'source_ip', 'user_agent']),
    );
    expect(fromAccessEntryItem(item ?? {})).toEqual(entry);
  });

  it('files membership changes by group and user files by owner; user files under the file', async () => {
    const member = newAccessEntry(
      {
        action: 'member.change_role',
        outcome: 'allowed',
        groupId: 3,
        memberId: 8,
        role: 'editor',
        previousRole: 'viewer',
      },
      OPERATOR,
      stamp,
    );
    const rename = newAccessEntry(
      { action: 'user_file.rename', outcome: 'allowed', fileId: 21 },
      requester,
      stamp,
    );
    await trail.record([member, rename]);
    expect(await itemAt('GROUP#3', `${member.at}#${member.id}`)).toMatchObject({
      member_id: 8,
      role: 'editor',
      previous_role: 'viewer',
    });
    expect(await itemAt('GROUP#3', `${member.at}#${member.id}`)).not.toHaveProperty('file');
    expect(await itemAt('USER#7', `${rename.at}#${rename.id}`)).toMatchObject({
      file: 'FILE#21',
    });
  });

  it("files the operator's delete of a user's file in its owner's trail, with the owner", async () => {
    const entry = newAccessEntry(
      { action: 'user_file.delete', outcome: 'allowed', fileId: 22, ownerId: 9 },
      OPERATOR,
      stamp,
    );
    await trail.record([entry]);
    const item = await itemAt('USER#9', `${entry.at}#${entry.id}`);
    expect(item).toMatchObject({ actor: 'operator', file: 'FILE#22', owner_id: 9 });
    expect(item).not.toHaveProperty('user_id');
    expect(fromAccessEntryItem(item ?? {})).toEqual(entry);
  });

  it('writes a room token of 150 rooms as chunks of 100 at once, all found by time and file', async () => {
    const entries = Array.from({ length: 150 }, (_, room) =>
      newAccessEntry(
        {
          action: 'realtime_token.issue',
          outcome: 'allowed',
          groupId: 40,
          dealId: room + 1,
          roomId: `local:v1:group:40:deal:${room + 1}`,
        },
        requester,
        stamp,
      ),
    );
    await trail.record(entries);
    const stored = (await all()).filter((item) => item.action === 'realtime_token.issue');
    expect(stored.map((item) => item.id).sort()).toEqual(entries.map((e) => e.id).sort());
    // Spread over every one of the day's 16 shards: no one partition takes a room's burst.
    const shards = new Set(stored.map((item) => item.time_shard));
    expect(shards.size).toBe(16);
    const { Items } = await dynamodb.send(
      new QueryCommand({
        TableName: trailTable,
        IndexName: 'ByTime',
        KeyConditionExpression: 'time_shard = :shard',
        ExpressionAttributeValues: { ':shard': '2026-05-04#0' },
      }),
    );
    expect(Items?.length).toBeGreaterThan(0);
    const byFile = await dynamodb.send(
      new QueryCommand({
        TableName: trailTable,
        IndexName: 'ByFile',
        // `file` is one of DynamoDB's reserved words: a query names it by a placeholder.
        KeyConditionExpression: '#file = :file',
        ExpressionAttributeNames: { '#file': 'file' },
        ExpressionAttributeValues: { ':file': 'FILE#11' },
      }),
    );
    expect(byFile.Items?.map((item) => String(item.action))).toEqual(['deal_file.download']);
  });

  it('never replaces an entry: a second put of its key is refused, and the first stays', async () => {
    const entry = newAccessEntry(
      { action: 'deal_file.download', outcome: 'allowed', groupId: 3, dealId: 6, fileId: 13 },
      requester,
      stamp,
    );
    await trail.record([entry]);
    const before = await all();
    await expect(trail.record([{ ...entry, fileId: 99 }])).rejects.toBeInstanceOf(TrailUnavailable);
    // In a transaction, too: the whole of it is refused.
    const fresh = newAccessEntry(
      { action: 'deal_file.download', outcome: 'allowed', groupId: 3, dealId: 6, fileId: 14 },
      requester,
      stamp,
    );
    await expect(trail.record([fresh, { ...entry, fileId: 98 }])).rejects.toBeInstanceOf(
      TrailUnavailable,
    );
    expect(await all()).toEqual(before);
  });

  it("takes one of its caller's slots for a refused request, with an entry for each deal it named", async () => {
    const caller = { ...requester, userId: 8, requestId: 'one-request' };
    const at = '2026-05-04T03:02:01.234Z';
    const inDeals = [1, 2, 3].map((dealId) =>
      newAccessEntry(
        {
          action: 'realtime_token.issue',
          outcome: 'refused',
          status: 404,
          groupId: 9,
          dealId,
          roomId: `local:v1:group:9:deal:${String(dealId)}`,
        },
        caller,
        stamp,
      ),
    );
    expect(await trail.recordRefusal(inDeals)).toBe('recorded');
    const slot = refusalSlot('one-request');
    expect(await itemAt('REFUSALS#8', `2026-05-04T03:02#${String(slot)}`)).toEqual({
      scope: 'REFUSALS#8',
      entry: `2026-05-04T03:02#${String(slot)}`,
      // Its minute plus a day: it bounds that minute only.
      expiration: Date.UTC(2026, 4, 5, 3, 2) / 1000,
    });
    for (const entry of inDeals) {
      expect(
        await itemAt(
          `DEAL#9#${String(entry.dealId)}`,
          `2026-05-04T03:02#refused#8#${String(slot)}`,
        ),
      ).toMatchObject({ at, id: entry.id, room_id: entry.roomId, request_id: 'one-request' });
    }
    // The same request again (a retry) finds its slot taken, and writes nothing.
    const before = await all();
    expect(
      await trail.recordRefusal(inDeals.map((entry) => ({ ...entry, id: '0'.repeat(32) }))),
    ).toBe('slot-taken');
    expect(await all()).toEqual(before);
  });

  it("adds an entry to another table's transaction: refused there, it is not written either", async () => {
    const entry = newAccessEntry(
      { action: 'deal_file.delete', outcome: 'allowed', groupId: 3, dealId: 8, fileId: 16 },
      requester,
      stamp,
    );
    const put = accessEntryPut({ tableName: trailTable, retentionDays: RETENTION_DAYS }, entry);
    const missing = {
      ConditionCheck: {
        TableName: tableName,
        Key: { PK: 'GROUP#3', SK: 'DEAL#8' },
        ConditionExpression: 'attribute_exists(PK)',
      },
    };
    await expect(transactWrite(dynamodb, { TransactItems: [missing, put] })).rejects.toThrow();
    expect(await itemAt('DEAL#3#8', `${entry.at}#${entry.id}`)).toBeUndefined();
    await transactWrite(dynamodb, { TransactItems: [put] });
    expect(await itemAt('DEAL#3#8', `${entry.at}#${entry.id}`)).toMatchObject({ file_id: 16 });
  });

  it('raises TrailUnavailable when its table cannot be reached', async () => {
    const gone = accessTrail({
      documents: () => dynamodb,
      TRAIL_TABLE_NAME: `${trailTable}-missing`,
      ACCESS_TRAIL_RETENTION_DAYS: RETENTION_DAYS,
    });
    const entry = newAccessEntry(
      { action: 'user_file.download', outcome: 'allowed', fileId: 1 },
      requester,
      stamp,
    );
    await expect(gone.record([entry])).rejects.toBeInstanceOf(TrailUnavailable);
    await expect(
      gone.recordRefusal([
        {
          ...entry,
          action: 'deal_file.download',
          outcome: 'refused',
          status: 404,
          groupId: 1,
          dealId: 1,
        },
      ]),
    ).rejects.toBeInstanceOf(TrailUnavailable);
  });
});

describe("a caller's refused deal accesses, recorded bounded", () => {
  it('records at most five of one caller’s refusals a minute, across 20 deals; the rest counted', async () => {
    const caller = 77;
    const minute = '2026-05-04T03:04';
    const atOf = (n: number) => new Date(Date.parse(`${minute}:00.000Z`) + n * 1000);
    const idOf = (n: number) => String(n).padStart(32, '0');
    const requestIdOf = (n: number) => `caller-77-request-${String(n)}`;
    const notRecorded: number[] = [];
    const ports = {
      // Deals that do not exist, in a group the caller is in no more than any other.
      dealFiles: new DynamoDealFileRepository(dynamodb, tableName),
      blobs: new S3BlobStore(s3, tableName),
      accessTrail: trail,
      refusalNotRecorded: (entries: number) => notRecorded.push(entries),
    };
    const refuse = (n: number, dealId: number) =>
      dealFileDownloadLink(
        { ...ports, now: () => atOf(n), newEntryId: () => idOf(n) },
        {
          requester: { ...requester, userId: caller, requestId: requestIdOf(n) },
          deal: { groupId: 60, dealId },
          fileId: 600 + n,
        },
      );
    for (let n = 0; n < 20; n++) await expect(refuse(n, n + 1)).rejects.toBeInstanceOf(NotFound);

    // The first request of each slot is recorded; these ids take every slot.
    const firstOfSlot = new Map<number, number>();
    for (let n = 0; n < 20; n++) {
      const slot = refusalSlot(requestIdOf(n));
      if (!firstOfSlot.has(slot)) firstOfSlot.set(slot, n);
    }
    expect([...firstOfSlot.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    const entryOf = (n: number, slot: number) => ({
      scope: `DEAL#60#${String(n + 1)}`,
      entry: `${minute}#refused#77#${String(slot)}`,
      time_shard: '2026-05-04#0',
      file: `FILE#${String(600 + n)}`,
      expiration: Math.floor(atOf(n).getTime() / 1000) + RETENTION_DAYS * 86_400,
      at: atOf(n).toISOString(),
      id: idOf(n),
      action: 'deal_file.download',
      outcome: 'refused',
      status: 404,
      actor: 'user',
      user_id: caller,
      group_id: 60,
      deal_id: n + 1,
      file_id: 600 + n,
      request_id: requestIdOf(n),
      source_ip: '203.0.113.9',
      user_agent: 'curl/8.5.0',
    });
    const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      `${String(a.scope)} ${String(a.entry)}`.localeCompare(
        `${String(b.scope)} ${String(b.entry)}`,
      );
    const stored = await all();
    expect(stored.filter((item) => item.user_id === caller).sort(byKey)).toEqual(
      [...firstOfSlot].map(([slot, n]) => entryOf(n, slot)).sort(byKey),
    );
    expect(stored.filter((item) => item.scope === 'REFUSALS#77').sort(byKey)).toEqual(
      [0, 1, 2, 3, 4].map((slot) => ({
        scope: 'REFUSALS#77',
        entry: `${minute}#${String(slot)}`,
        expiration: Date.parse(`${minute}:00.000Z`) / 1000 + 86_400,
      })),
    );
    expect(notRecorded).toEqual(Array<number>(15).fill(1));

    // The next minute opens five slots again.
    const later = await refuse(80, 99).catch((error: unknown) => error);
    expect(later).toBeInstanceOf(NotFound);
    expect(
      await itemAt(
        'DEAL#60#99',
        `2026-05-04T03:05#refused#77#${String(refusalSlot(requestIdOf(80)))}`,
      ),
    ).toMatchObject({ request_id: requestIdOf(80) });
    expect(notRecorded).toHaveLength(15);
  });
});
