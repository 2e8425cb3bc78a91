/**
 * Listing 10,000 files through the local stage against its floor: the raw paginated Query
 * of the same items (the same index, newest first, strongly consistent, every page to the
 * end, unmarshalled by the same document client), sent straight to the same DynamoDB Local
 * from this process. The stage also checks each item and writes the JSON body. Target: at
 * most 1.2 times the floor. The two take turns, so drift on the machine falls on both alike.
 */
import { Agent, request as httpRequest } from 'node:http';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { FILES_BY_CREATION_INDEX, PARTITION_KEY, userPartition } from '#shared/storage/keys.ts';
import { putItems } from '#test/support/put-items.ts';
import { floorClient } from './floor-client.ts';
import { type Figure, figureLine, FIGURE_HEADER, median, spreadOf, timed } from './figures.ts';

const LISTING_RATIO_TARGET = 1.2;
const FILES = 10_000;
const ROUNDS = Number(process.env.BENCH_LISTING_ROUNDS ?? 15);

/** A GET's status, headers and raw body: no content coding undone. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

export function get(
  url: string,
  headers: Readonly<Record<string, string>>,
  agent?: Agent,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

export async function benchListing(options: {
  url: string;
  bearer: string;
  userId: number;
  dynamodbEndpoint: string;
}): Promise<{ report: string; figures: Figure[] }> {
  const client = floorClient(options.dynamodbEndpoint);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  await putItems(
    client,
    LOCAL_TABLE,
    Array.from({ length: FILES }, (_, i) =>
      toUserFileItem({
        id: i + 1,
        userId: options.userId,
        name: `quarterly report ${String(i + 1)}.pdf`,
        type: i % 2 === 0 ? 'deck' : null,
        createdAt: new Date(start + i * 60_000).toISOString(),
        updatedAt: i % 3 === 0 ? new Date(start + i * 60_000 + 1000).toISOString() : null,
        isArchived: i % 5 === 0,
        filesize: 1000 + i,
        location: `users/${String(options.userId)}/files/${String(i + 1)}`,
      }),
    ),
  );
  const listUrl = `${options.url}/api/v1/user/me/file`;
  const throughStage = async () => {
    const { status, body } = await get(
      listUrl,
      { authorization: `Bearer ${options.bearer}` },
      agent,
    );
    if (status !== 200) throw new Error(`list answered ${status}: ${body.toString()}`);
    return body;
  };
  const rawQuery = async () => {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client },
      {
        TableName: LOCAL_TABLE,
        IndexName: FILES_BY_CREATION_INDEX,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        ExpressionAttributeValues: { ':pk': userPartition(options.userId) },
        ScanIndexForward: false,
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  };
  try {
    // Warm-up, and proof that both see every file.
    const listed = JSON.parse((await throughStage()).toString()) as unknown[];
    const queried = await rawQuery();
    if (listed.length !== FILES || queried.length !== FILES) {
      throw new Error(`listed ${String(listed.length)}, queried ${String(queried.length)}`);
    }
    const staged: number[] = [];
    const raw: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      raw.push(await timed(rawQuery));
      staged.push(await timed(throughStage));
    }
    const figure: Figure = {
      name: `GET /api/v1/user/me/file, ${FILES.toLocaleString('en')}`,
      unit: 'ms',
      ...spreadOf(staged),
      floor: median(raw),
      floorName: 'the raw paginated Query',
      target: LISTING_RATIO_TARGET,
    };
    return {
      figures: [figure],
      report: `
Listing ${FILES.toLocaleString('en')} files through the local stage against the raw paginated Query, ${String(ROUNDS)} rounds
${FIGURE_HEADER}
${figureLine(figure)}
`,
    };
  } finally {
    agent.destroy();
    client.destroy();
  }
}
