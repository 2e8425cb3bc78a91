/**
 * What the access trail costs a download (issue 55): a member's deal-file download link, the
 * real use case on the real adapters against the bench's DynamoDB Local and object store,
 * with its entry and, taking turns with it, without (the same use case on a trail that keeps
 * nothing). Held: at most one DynamoDB call more per download (its conditional PutItem).
 * Reported: the time of each, and 100 members of one deal asking at once, every link issued
 * and every entry written. DynamoDB Local has no partition limits, so that last figure shows
 * the entries' keys do not collide, not that DynamoDB would not throttle them: a deal's
 * entries share its partition (1,000 writes a second) and the sealer's index spreads a day
 * over 16 shards (docs/data-model.md).
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import type { Requester } from '#shared/access-trail/access-entry.ts';
import type { AccessTrail } from '#shared/access-trail/access-trail.ts';
import { DynamoAccessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { DynamoDealFileRepository } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { dealFileDownloadLink } from '#shared/deal-files/deal-file-download.ts';
import {
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import { toDealFileItem } from '#shared/storage/file-items.ts';
import { dealFile } from '#test/support/deal-fixtures.ts';
import { putItems } from '#test/support/put-items.ts';
import { benchStore, type StandInEndpoints } from './bench-store.ts';
import { type Figure, figureLine, FIGURE_HEADER, spreadOf, timed } from './figures.ts';

const GROUP = 5_500;
const DEAL = 1;
const FILE = 55_001;
const MEMBERS = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7) * 30;

/** A trail that keeps nothing: the download as it was before the trail. */
const NO_TRAIL: AccessTrail = {
  record: () => Promise.resolve(),
  recordRefusal: () => Promise.resolve('recorded'),
};

export async function benchDownloads(
  options: StandInEndpoints,
): Promise<{ report: string; figures: Figure[] }> {
  const store = await benchStore('bench-downloads', options);
  const { name: table, dynamodb, documents, s3 } = store;
  let calls = 0;
  dynamodb.middlewareStack.add(
    (next) => (args) => {
      calls += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countDynamoDbCalls' },
  );
  const created = '2026-12-01T09:00:00.000Z';
  await putItems(documents, table, [
    toGroupItem({ id: GROUP, name: 'Bench fund', createdAt: created }),
    toDealItem({ groupId: GROUP, id: DEAL, name: 'Bench deal', createdAt: created }),
    ...Array.from({ length: MEMBERS }, (_, i) =>
      toMemberItem({ groupId: GROUP, userId: i + 1, role: i % 2 === 0 ? 'viewer' : 'editor' }),
    ),
    toDealFileItem(
      dealFile(GROUP, DEAL, FILE, {
        scan: { status: 'scanned', result: 'NO_THREATS_FOUND', at: created },
      }),
    ),
  ]);
  const trail = { tableName: trailTableNameOf(table), retentionDays: 400 };
  const ports = (accessTrail: AccessTrail) => ({
    dealFiles: new DynamoDealFileRepository(documents, table),
    blobs: new S3BlobStore(s3, table),
    accessTrail,
    scanning: true,
  });
  const withEntry = ports(new DynamoAccessTrail(documents, trail));
  const withoutEntry = ports(NO_TRAIL);
  const requester = (userId: number): Requester => ({
    userId,
    requestId: randomUUID(),
    sourceIp: '203.0.113.7',
    userAgent: 'bench',
  });
  const download = (on: typeof withEntry, userId = 1) =>
    dealFileDownloadLink(on, {
      requester: requester(userId),
      deal: { groupId: GROUP, dealId: DEAL },
      fileId: FILE,
    });
  const callsOf = async (on: typeof withEntry) => {
    const before = calls;
    await download(on);
    return calls - before;
  };
  try {
    for (let i = 0; i < 30; i++) await Promise.all([download(withEntry), download(withoutEntry)]);
    const callsWith = await callsOf(withEntry);
    const callsWithout = await callsOf(withoutEntry);
    const times = { with: [] as number[], without: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      times.with.push(await timed(() => download(withEntry)));
      times.without.push(await timed(() => download(withoutEntry)));
    }
    // 100 members of the deal at once, each with its own link and entry.
    const entriesBefore = await countEntries(documents, trail.tableName);
    let refused = 0;
    const together = await timed(() =>
      Promise.all(
        Array.from({ length: MEMBERS }, (_, i) =>
          download(withEntry, i + 1).catch(() => {
            refused += 1;
          }),
        ),
      ),
    );
    const written = (await countEntries(documents, trail.tableName)) - entriesBefore;
    const without = spreadOf(times.without);
    const figures: Figure[] = [
      {
        name: 'download: DynamoDB calls, without entry',
        unit: 'calls',
        median: callsWithout,
      },
      {
        name: 'download: DynamoDB calls, with entry',
        unit: 'calls',
        median: callsWith,
        floor: callsWithout,
        floorName: 'the calls without it',
        most: callsWithout + 1,
      },
      { name: 'download link, without its entry', unit: 'ms', ...without },
      {
        name: 'download link, with its entry',
        unit: 'ms',
        ...spreadOf(times.with),
        floor: without.median,
        floorName: 'the link without it',
      },
      {
        name: `${String(MEMBERS)} members at once: refused`,
        unit: 'calls',
        median: refused,
        most: 0,
      },
      {
        name: `${String(MEMBERS)} members at once: entries missing`,
        unit: 'items',
        median: MEMBERS - written,
        most: 0,
      },
      { name: `${String(MEMBERS)} members at once: all done`, unit: 'ms', median: together },
    ];
    return {
      figures,
      report: `
Deal-file download links with and without their access-trail entry: the use case on DynamoDB Local and the object store, ${String(ROUNDS)} of each, taking turns
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
`,
    };
  } finally {
    store.destroy();
  }
}

/** The entries in the deal's trail, counted by DynamoDB (`Select: COUNT`, every page). */
async function countEntries(documents: DynamoDBDocumentClient, tableName: string) {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: '#scope = :scope',
        ExpressionAttributeNames: { '#scope': 'scope' },
        ExpressionAttributeValues: { ':scope': `DEAL#${String(GROUP)}#${String(DEAL)}` },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return count;
}
