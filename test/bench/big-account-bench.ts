/**
 * Accounts far past what one uncompressed answer holds, on the local stage (reported): 30,000
 * files of 60-character names in one gzipped answer, and 200,000 walked in pages of 1,000
 * through the `Link` headers, each page's size against Lambda's 6 MB.
 */
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { userFileObjectKey } from '#shared/storage/keys.ts';
import { LAMBDA_MAX_RESPONSE_BYTES } from '#shared/http/answer-size.ts';
import { putItems } from '#test/support/put-items.ts';
import { floorClient } from './floor-client.ts';
import { get as getRaw, type RawAnswer } from './listing-bench.ts';
import type { Figure } from './figures.ts';

const get = (url: string, bearer: string, encoding: string): Promise<RawAnswer> =>
  getRaw(url, { authorization: `Bearer ${bearer}`, 'accept-encoding': encoding });

async function seed(endpoint: string, userId: number, count: number): Promise<void> {
  const client = floorClient(endpoint);
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  try {
    await putItems(
      client,
      LOCAL_TABLE,
      Array.from({ length: count }, (_, i) =>
        toUserFileItem({
          id: i + 1,
          userId,
          name:
            `${String(i + 1).padStart(8, '0')}-${'quarterly-report-'.repeat(4)}`.slice(0, 56) +
            '.pdf',
          type: 'financials',
          createdAt: new Date(start + i * 1000).toISOString(),
          updatedAt: null,
          isArchived: false,
          filesize: 1000 + i,
          location: `s3://file-service-data-filesbucket-0123456789ab/${userFileObjectKey(userId, i + 1)}`,
        }),
      ),
    );
  } finally {
    client.destroy();
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

export async function benchBigAccounts(options: {
  url: string;
  bearerFor: (userId: number) => Promise<string>;
  dynamodbEndpoint: string;
}): Promise<{ report: string; figures: Figure[] }> {
  const list = `${options.url}/api/v1/user/me/file`;
  const lines: string[] = [];
  const figures: Figure[] = [];

  await seed(options.dynamodbEndpoint, 3, 30_000);
  const gzipBearer = await options.bearerFor(3);
  const gzipTimes: number[] = [];
  let zipped: RawAnswer | undefined;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    zipped = await get(list, gzipBearer, 'gzip');
    gzipTimes.push(performance.now() - started);
    if (zipped.status !== 200) throw new Error(`30,000 files: ${String(zipped.status)}`);
  }
  const plain = await get(list, gzipBearer, 'identity');
  const gzipMs = gzipTimes.sort((a, b) => a - b)[1] ?? Number.NaN;
  figures.push({ name: '30,000 files, one gzipped answer', unit: 'ms', median: gzipMs });
  lines.push(
    `30,000 files, 60-character names: gzipped ${String(zipped?.status)} in ${gzipMs.toFixed(0)} ms (median of 3), ` +
      `${mb(zipped?.body.length ?? 0)} sent (${mb(((zipped?.body.length ?? 0) * 4) / 3)} as base64 in Lambda's answer); ` +
      `uncompressed: ${String(plain.status)}`,
  );

  await seed(options.dynamodbEndpoint, 4, 200_000);
  const pagedBearer = await options.bearerFor(4);
  let next: string | undefined = `${list}?limit=1000`;
  let pages = 0;
  let files = 0;
  let largest = 0;
  const started = performance.now();
  while (next !== undefined) {
    const page = await get(next, pagedBearer, 'identity');
    if (page.status !== 200) throw new Error(`page ${String(pages)}: ${String(page.status)}`);
    files += (JSON.parse(page.body.toString()) as unknown[]).length;
    largest = Math.max(largest, page.body.length);
    pages++;
    const link = page.headers.link;
    const path = typeof link === 'string' ? /^<([^>]+)>/.exec(link)?.[1] : undefined;
    next = path === undefined ? undefined : `${options.url}${path}`;
  }
  const pagedMs = performance.now() - started;
  figures.push({ name: '200,000 files in 200 pages', unit: 'ms', median: pagedMs });
  lines.push(
    `200,000 files in pages of 1,000: ${String(files)} files in ${String(pages)} pages, ${(pagedMs / 1000).toFixed(1)} s ` +
      `(${(pagedMs / pages).toFixed(0)} ms a page); largest page ${mb(largest)}, ` +
      `${((largest / LAMBDA_MAX_RESPONSE_BYTES) * 100).toFixed(0)}% of Lambda's limit`,
  );
  return { figures, report: `\nBig accounts on the local stage (reported)\n${lines.join('\n')}\n` };
}
