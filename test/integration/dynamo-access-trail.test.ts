import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import {
  type AccessEntry,
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
import { TrailUnavailable } from '#shared/domain/outcome.ts';
import { transactWrite } from '#shared/storage/aws/transactions.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint } = standInClients();
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

  it("bounds a caller's refusals: five slots a deal a minute, a slot taken is not written", async () => {
    const refusal = (requestId: string, second: number): AccessEntry =>
      newAccessEntry(
        {
          action: 'deal_file.download',
          outcome: 'refused',
          status: 404,
          groupId: 3,
          dealId: 7,
          fileId: 15,
        },
        { ...requester, requestId },
        { ...stamp, now: () => new Date(AT.getTime() + second * 1000) },
      );
    const results = [];
    for (let n = 0; n < 40; n++) results.push(await trail.recordRefusal(refusal(`r-${n}`, n)));
    const stored = (await all()).filter((item) => item.scope === 'DEAL#3#7');
    expect(stored).toHaveLength(5);
    expect(results.filter((result) => result === 'recorded')).toHaveLength(5);
    expect(stored.map((item) => item.entry).sort()).toEqual(
      [0, 1, 2, 3, 4].map((slot) => `2026-05-04T03:02#refused#7#${slot}`),
    );
    const first = stored.find((item) => item.request_id === 'r-0');
    expect(first).toMatchObject({
      entry: `2026-05-04T03:02#refused#7#${refusalSlot('r-0')}`,
      outcome: 'refused',
      status: 404,
    });
    // The same request again lands on its own slot, taken.
    expect(await trail.recordRefusal(refusal('r-0', 50))).toBe('slot-taken');
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
      gone.recordRefusal({
        ...entry,
        action: 'deal_file.download',
        outcome: 'refused',
        status: 404,
        groupId: 1,
        dealId: 1,
      }),
    ).rejects.toBeInstanceOf(TrailUnavailable);
  });
});
