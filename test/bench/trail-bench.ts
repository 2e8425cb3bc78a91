/**
 * The access trail at a million entries, on the local stage (issue 55: "a trail of 1,000,000
 * entries pages and exports without a 5xx or a timeout"). One deal's trail is seeded straight
 * into DynamoDB Local with BatchWriteItem (here only: the service never batch-writes it), then:
 * - pages: newest-first pages of 1,000 through the stage, following the `Link` headers, each
 *   against the raw Query of the same 1,001 items sent from this process (target);
 * - a filter that matches nothing: pages answered short, each after a bounded read, with
 *   their link (reported: their time, and that every one answered 200);
 * - export: `npm run admin -- access export --format csv` as the operator runs it, in a
 *   process of its own, its stdout read and dropped: entries a second against the raw
 *   paginated Query of the same trail, oldest first (target), and its peak memory (reported).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { QueryCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { newAccessEntry } from '#shared/access-trail/access-entry.ts';
import { accessEntryPut, scopeKey } from '#shared/access-trail/adapters/access-entry-item.ts';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import {
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import { batchWriteAll } from '#shared/storage/aws/batch-write.ts';
import { putItems } from '#test/support/put-items.ts';
import { floorClient } from './floor-client.ts';
import { type Figure, figureLine, FIGURE_HEADER, median, spreadOf } from './figures.ts';
import { get } from './listing-bench.ts';
import { residentBytes } from './proc-memory.ts';

const ENTRIES = Number(process.env.BENCH_TRAIL_ENTRIES ?? 1_000_000);
const PAGES = Number(process.env.BENCH_TRAIL_PAGES ?? 50);
const SPARSE_PAGES = 10;
/**
 * A page through the stage (its handler, HTTP and JSON) over the Query's own time: measured
 * at 1.40 and 1.46 (a million entries, and 20,000 on a busy machine), and about a third more.
 */
const PAGE_RATIO_TARGET = 1.9;
/**
 * The export (the CLI's start, the merge, CSV, stdout) over the raw Query of the same entries:
 * measured at 0.96 and 0.94 (its reads overlap its writing), and about a third more.
 */
const EXPORT_RATIO_TARGET = 1.3;

const GROUP = 1;
const DEAL = 1;
const EDITOR = 1;
const TRAIL = trailTableNameOf(LOCAL_TABLE);
const SCOPE = scopeKey({ kind: 'deal', groupId: GROUP, dealId: DEAL });
const FIRST = Date.parse('2026-01-01T00:00:00.000Z');

/** One download a member made, 25 ms after the one before: 100 members, 50 files. */
function entryItem(n: number): Record<string, unknown> {
  const entry = newAccessEntry(
    {
      action: 'deal_file.download',
      outcome: 'allowed',
      groupId: GROUP,
      dealId: DEAL,
      fileId: 1000 + (n % 50),
    },
    {
      userId: 100 + (n % 100),
      requestId: randomBytes(12).toString('base64'),
      sourceIp: '203.0.113.9',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15',
    },
    { now: () => new Date(FIRST + n * 25), newEntryId: () => randomBytes(16).toString('hex') },
  );
  return accessEntryPut({ tableName: TRAIL, retentionDays: 400 }, entry).Put.Item;
}

/** The group, its editor, its deal, and the deal's trail: four writers at once. */
async function seed(endpoint: string): Promise<number> {
  const client = floorClient(endpoint);
  const started = performance.now();
  try {
    await putItems(client, LOCAL_TABLE, [
      toGroupItem({ id: GROUP, name: 'Bench fund', createdAt: new Date(FIRST).toISOString() }),
      toMemberItem({ groupId: GROUP, userId: EDITOR, role: 'editor' }),
      toDealItem({
        groupId: GROUP,
        id: DEAL,
        name: 'Bench deal',
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
    ]);
    const writers = 4;
    const share = Math.ceil(ENTRIES / writers);
    await Promise.all(
      Array.from({ length: writers }, async (_, writer) => {
        const end = Math.min(ENTRIES, (writer + 1) * share);
        for (let from = writer * share; from < end; from += 1000) {
          const batch = Array.from({ length: Math.min(1000, end - from) }, (__, i) => ({
            PutRequest: { Item: entryItem(from + i) },
          }));
          await batchWriteAll(client, TRAIL, batch);
        }
      }),
    );
    return performance.now() - started;
  } finally {
    client.destroy();
  }
}

/** The `Link` header's next page, as an absolute URL; undefined on the last. */
const nextOf = (base: string, link: string | string[] | undefined): string | undefined => {
  const path = typeof link === 'string' ? /^<([^>]+)>/.exec(link)?.[1] : undefined;
  return path === undefined ? undefined : `${base}${path}`;
};

const thousands = (n: number) => Math.round(n).toLocaleString('en');

export async function benchTrail(options: {
  url: string;
  bearer: string;
  dynamodbEndpoint: string;
  stageDir: string;
}): Promise<{ report: string; figures: Figure[] }> {
  const lines: string[] = [];
  const figures: Figure[] = [];
  const progress = (what: string) => {
    process.stderr.write(`trail: ${what}\n`);
  };
  progress(`seeding ${thousands(ENTRIES)} entries`);
  const seedMs = await seed(options.dynamodbEndpoint);
  progress('paging');
  lines.push(
    `seeded ${thousands(ENTRIES)} entries of one deal with BatchWriteItem in ${(seedMs / 1000).toFixed(0)} s (${thousands(ENTRIES / (seedMs / 1000))} a second)`,
  );
  const client = floorClient(options.dynamodbEndpoint);
  const auth = { authorization: `Bearer ${options.bearer}` };
  const access = `${options.url}/api/v1/group/${String(GROUP)}/deal/${String(DEAL)}/access`;
  try {
    // Pages through the stage, each beside the raw Query of the same 1,001 items.
    const staged: number[] = [];
    const raw: number[] = [];
    let largest = 0;
    let next: string | undefined = `${access}?limit=1000`;
    let rawStart: Record<string, unknown> | undefined;
    for (let page = 0; page < PAGES && next !== undefined; page++) {
      const rawStarted = performance.now();
      const { LastEvaluatedKey, Items = [] } = await client.send(
        new QueryCommand({
          TableName: TRAIL,
          KeyConditionExpression: '#p = :p',
          ExpressionAttributeNames: { '#p': 'scope' },
          ExpressionAttributeValues: { ':p': SCOPE },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: 1001,
          ExclusiveStartKey: rawStart,
        }),
      );
      raw.push(performance.now() - rawStarted);
      // The next raw page starts after the 1,000th, as the stage's does.
      const last = Items[999];
      rawStart = last === undefined ? LastEvaluatedKey : { scope: last.scope, entry: last.entry };
      const started = performance.now();
      const answer = await get(next, auth);
      staged.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`page ${String(page)}: ${String(answer.status)}`);
      if ((JSON.parse(answer.body.toString()) as unknown[]).length !== 1000) {
        throw new Error(`page ${String(page)} is not a page of 1,000`);
      }
      largest = Math.max(largest, answer.body.length);
      next = nextOf(options.url, answer.headers.link);
    }
    const pages: Figure = {
      name: `a page of 1,000 of ${thousands(ENTRIES)}`,
      unit: 'ms',
      ...spreadOf(staged),
      floor: median(raw),
      floorName: 'the raw Query of its 1,001 items',
      target: PAGE_RATIO_TARGET,
    };
    figures.push(pages);

    progress('a filter matching none');
    // A filter that matches nothing: every page short, bounded, with its link.
    const sparse: number[] = [];
    let sparseNext = `${access}?user_id=999999&limit=1000`;
    for (let page = 0; page < SPARSE_PAGES; page++) {
      const started = performance.now();
      const answer = await get(sparseNext, auth);
      sparse.push(performance.now() - started);
      if (answer.status !== 200 || answer.body.toString() !== '[]') {
        throw new Error(`sparse page ${String(page)}: ${String(answer.status)}`);
      }
      const link = nextOf(options.url, answer.headers.link);
      // The trail's end; a million entries read 4,000 a page have 250 pages.
      if (link === undefined) break;
      sparseNext = link;
    }
    const sparseFigure: Figure = {
      name: 'an empty page of a filter matching none',
      unit: 'ms',
      ...spreadOf(sparse),
    };
    figures.push(sparseFigure);

    progress('exporting');
    // The export as the operator runs it, against the raw Query of the same entries.
    const rawExportStarted = performance.now();
    let rawCount = 0;
    for await (const page of paginateQuery(
      { client },
      {
        TableName: TRAIL,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': 'scope' },
        ExpressionAttributeValues: { ':p': SCOPE },
        ConsistentRead: true,
        // As the export asks (DynamoDB Local reads the whole partition a page without one).
        Limit: 5000,
      },
    )) {
      rawCount += page.Items?.length ?? 0;
    }
    const rawExportMs = performance.now() - rawExportStarted;
    const exported = await runExport(options.stageDir);
    if (exported.code !== 0 || exported.lines !== ENTRIES + 1 || rawCount !== ENTRIES) {
      throw new Error(
        `export: exit ${String(exported.code)}, ${String(exported.lines)} lines, raw ${String(rawCount)}`,
      );
    }
    const exportFigure: Figure = {
      name: `access export --format csv, ${thousands(ENTRIES)}`,
      unit: 'ms',
      median: exported.ms,
      floor: rawExportMs,
      floorName: 'the raw paginated Query of the trail',
      target: EXPORT_RATIO_TARGET,
    };
    figures.push(exportFigure);
    lines.push(
      `pages of 1,000: the largest ${(largest / 1e6).toFixed(2)} MB; a filter matching none: ${String(sparse.length)} empty pages, each with its link`,
      `export: ${thousands(ENTRIES / (exported.ms / 1000))} entries a second (${(exported.bytes / 1e6).toFixed(0)} MB of CSV), the raw Query ${thousands(ENTRIES / (rawExportMs / 1000))}; the CLI's peak resident memory ${(exported.peakRss / 1e6).toFixed(0)} MB`,
    );
    return {
      figures,
      report: `
The access trail at ${thousands(ENTRIES)} entries on the local stage
${lines.join('\n')}
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
`,
    };
  } finally {
    client.destroy();
  }
}

/** The operator's export in a process of its own: its time, lines, bytes and peak memory. */
function runExport(stageDir: string) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      join(REPOSITORY_ROOT, 'infra/admin/admin.ts'),
      ...['access', 'export', '--group', String(GROUP), '--format', 'csv'],
    ],
    { env: { ...process.env, LOCAL_DATA_DIR: stageDir }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let peakRss = 0;
  const sampling = setInterval(() => {
    try {
      if (child.pid !== undefined) peakRss = Math.max(peakRss, residentBytes(child.pid));
    } catch {
      // Gone between the check and the read.
    }
  }, 100);
  let bytes = 0;
  let lines = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) lines++;
  });
  return new Promise<{ code: number; ms: number; bytes: number; lines: number; peakRss: number }>(
    (resolve) => {
      child.once('close', (code) => {
        clearInterval(sampling);
        resolve({ code: code ?? 1, ms: performance.now() - started, bytes, lines, peakRss });
      });
    },
  );
}
