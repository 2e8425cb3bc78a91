/**
 * The realtime-token path against its floors. A 50-room request answers after one strongly
 * consistent BatchGetItem of the caller's memberships and the deals, and the GetItem of their
 * erasure marker sent at once, then one TransactWriteItems of the rooms' access-trail entries;
 * nothing else it does needs I/O. Each shape of 50 rooms is measured three ways, taking turns within each round so
 * that drift on the machine falls on all alike:
 * - that very BatchGetItem, sent straight to the same DynamoDB Local from this process;
 * - the bare service (`bare-token-service.ts`): the same reads, entries and signature behind a plain
 *   node:http server in a process of its own, with nothing else;
 * - the local stage: HTTP, the JWT authorizer, the payload 2.0 event, the handler with its
 *   middleware, the read, the signature.
 * Target: the stage within 1.2 times the bare service. Its ratio to the BatchGetItem alone is
 * reported beside the bare service's own, which is the price of one more HTTP hop between
 * processes on this machine (docs/benchmarks.md).
 */
import { Agent, request as httpRequest } from 'node:http';
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import { batchGetAll } from '#shared/storage/aws/batch-get.ts';
import {
  dealKey,
  memberKey,
  toDealItem,
  toGroupItem,
  toMemberItem,
} from '#shared/groups/adapters/dynamo-group-repository.ts';
import { putItems } from '#test/support/put-items.ts';
import { floorClient } from './floor-client.ts';
import { type Figure, figureLine, FIGURE_HEADER, spreadOf, timed } from './figures.ts';

const TOKEN_RATIO_TARGET = 1.2;

/** POSTs a JSON body over one kept-alive connection, as a client of the API would. */
function postJson(
  agent: Agent,
  url: string,
  bearer: string,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, text });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export async function benchTokens(options: {
  url: string;
  /** The bare service's URL (`bare-token-service.ts`), on the same DynamoDB Local. */
  bareUrl: string;
  bearer: string;
  userId: number;
  dynamodbEndpoint: string;
  rounds: number;
}): Promise<{ report: string; figures: Figure[] }> {
  const client = floorClient(options.dynamodbEndpoint);
  // Group 100000 holds deals 1..50; groups 100000..100049 hold a deal 1 each.
  const groups = Array.from({ length: 50 }, (_, i) => 100_000 + i);
  const created = new Date().toISOString();
  await putItems(client, LOCAL_TABLE, [
    ...groups.flatMap((groupId) => [
      toGroupItem({ id: groupId, name: `G${groupId}`, createdAt: created }),
      toMemberItem({ groupId, userId: options.userId, role: 'editor' }),
      toDealItem({ groupId, id: 1, name: 'D', createdAt: created }),
    ]),
    ...groups
      .slice(1)
      .map((_, i) => toDealItem({ groupId: 100_000, id: i + 2, name: 'D', createdAt: created })),
  ]);
  const shapes: Record<string, (readonly [number, number])[]> = {
    '50 rooms in 1 group': groups.map((_, i) => [100_000, i + 1] as const),
    '50 rooms in 50 groups': groups.map((g) => [g, 1] as const),
  };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const tokenUrl = `${options.url}/api/v1/auth/get-realtime-token`;
  const bareAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const ask = (deals: readonly (readonly [number, number])[], to = { agent, url: tokenUrl }) => {
    const body = JSON.stringify({
      room_ids: deals.map(([g, d]) => `local:v1:group:${g}:deal:${d}`),
    });
    return async () => {
      const { status, text } = await postJson(to.agent, to.url, options.bearer, body);
      if (status !== 200) throw new Error(`token answered ${status}: ${text}`);
    };
  };
  // The keys the service reads for those rooms: a membership per group, and each deal.
  const keysOf = (deals: readonly (readonly [number, number])[]) => [
    ...new Map(
      deals.flatMap(([g, d]) => [
        [`m${g}`, memberKey(g, options.userId)],
        [`d${g}:${d}`, dealKey(g, d)],
      ]),
    ).values(),
  ];
  const read = (deals: readonly (readonly [number, number])[]) => {
    const keys = keysOf(deals);
    return () => batchGetAll(client, LOCAL_TABLE, keys, ['role']);
  };
  const work: Record<string, () => Promise<unknown>> = { '0 rooms': ask([]) };
  for (const [name, deals] of Object.entries(shapes)) {
    work[name] = ask(deals);
    work[`${name}: its BatchGetItem`] = read(deals);
    work[`${name}: bare service`] = ask(deals, { agent: bareAgent, url: options.bareUrl });
  }
  for (let i = 0; i < 50; i++) for (const run of Object.values(work)) await run();
  const times: Record<string, number[]> = {};
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, run] of Object.entries(work)) (times[name] ??= []).push(await timed(run));
  }
  agent.destroy();
  bareAgent.destroy();
  client.destroy();
  const spread = (name: string) => spreadOf(times[name] ?? []);
  const figures: Figure[] = [
    { name: '0 rooms', unit: 'ms', ...spread('0 rooms') },
    ...Object.keys(shapes).flatMap((name): Figure[] => {
      const read = spread(`${name}: its BatchGetItem`);
      const bare = spread(`${name}: bare service`);
      const readName = `its BatchGetItem of ${String(keysOf(shapes[name] ?? []).length)} keys`;
      const stageAgainst = (floor: number, floorName: string, target?: number): Figure => ({
        name: `${name}: the stage`,
        unit: 'ms',
        basis: 'p10',
        ...spread(name),
        floor,
        floorName,
        ...(target === undefined ? {} : { target }),
      });
      return [
        { name: `${name}: its BatchGetItem`, unit: 'ms', ...read },
        {
          name: `${name}: bare service`,
          unit: 'ms',
          basis: 'p10',
          ...bare,
          floor: read.p10,
          floorName: readName,
        },
        stageAgainst(read.p10, readName),
        stageAgainst(bare.p10, 'the bare service', TOKEN_RATIO_TARGET),
      ];
    }),
  ];
  return {
    figures,
    report: `
Realtime token: its one BatchGetItem sent directly, the bare service and the local stage, ${String(options.rounds)} rounds
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
`,
  };
}
