/**
 * CPU time per request, in this process: each route's handler module, built by its own
 * `createHandler` on ports answered from memory (`memory-adapters.ts`), invoked with a
 * payload 2.0 event as API Gateway sends it, many times. Logs and metrics are on, as
 * deployed (their lines go nowhere while measuring, so the figure holds building them, not
 * the terminal's speed). Each case is held against its floor, measured in turn with it: the
 * work no implementation of the route can skip, which is decoding the body and serialising
 * the same response (and signing, for tokens). The ratio must stay within the case's budget.
 *
 * CPU time is `process.cpuUsage()` around the invocation: every thread of the process, so work
 * done on libuv's pool counts too.
 */
import { createHash } from 'node:crypto';
import { variableDefaults } from '#shared/config/environment.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import type { DealFile } from '#shared/deal-files/deal-file.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { signRealtimeToken } from '#shared/realtime/sign-realtime-token.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import type { Context } from 'aws-lambda';
import { localLambdaContext } from '#infra/local/lambda/lambda-context.ts';
import { apiEvent } from '#test/support/api-events.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { type Figure, figureLine, FIGURE_HEADER, median, spreadOf } from './figures.ts';
import { memoryAdapters, type MemoryState } from './memory-adapters.ts';

const RUNS = Number(process.env.BENCH_CPU_RUNS ?? 400);
const USER = 7;

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;
type HandlerModule = {
  createHandler?: (adapters: ServiceAdapters, settings: HandlerSettings) => Handler;
  /** A function with no ports (RouteNotFound) exports its handler built. */
  handler?: Handler;
};

interface CpuCase {
  readonly name: string;
  /** The handler module, as the route table names it. */
  readonly entry: string;
  readonly event: ApiEvent;
  readonly status: number;
  /** The least any implementation must do for this request, given its response body. */
  readonly floor: (responseBody: string, handler: Handler) => () => unknown;
  readonly floorName: string;
  /**
   * The most the handler's median may be, as a multiple of the floor's: what the route was
   * measured at on 2026-11-23 (docs/benchmarks.md), and about a third more, so that a change
   * that makes a route markedly dearer fails the bench and a noisy run does not.
   */
  readonly budget: number;
}

/** As deployed: the schema's defaults, but for the stage's own facts and the quotas. */
const SETTINGS: HandlerSettings = {
  ...variableDefaults(),
  STAGE: 'production',
  REALTIME_ISSUER: 'https://files.example.com',
  // Held to, as deployed, but out of reach: every upload counts 4 MiB against the bench user,
  // and the bench measures the handler, not an allowance it runs out of (1 TiB: 262,144 runs).
  MAX_FILES_PER_USER: 1_000_000,
  MAX_BYTES_PER_USER: 1024 ** 4,
};

const claims = { sub: String(USER) };
const jsonEvent = (routeKey: string, body: unknown, pathParameters?: Record<string, string>) =>
  apiEvent({
    routeKey,
    claims,
    body: JSON.stringify(body),
    contentType: 'application/json',
    ...(pathParameters === undefined ? {} : { pathParameters }),
  });

/** Decoding a JSON body and writing the response: the floor of every JSON route. */
const parseAndWrite = (event: ApiEvent) => (responseBody: string) => {
  const response: unknown = JSON.parse(responseBody);
  return () => {
    JSON.parse(event.body ?? 'null');
    return JSON.stringify(response);
  };
};

/** A request no route matches, as API Gateway hands it to `$default`. */
function unmatched(path: string): ApiEvent {
  const event = apiEvent({ routeKey: '$default' });
  return {
    ...event,
    rawPath: path,
    requestContext: {
      ...event.requestContext,
      http: { ...event.requestContext.http, method: 'GET', path },
    },
  };
}

/** BENCH_CPU_CASE=<name> runs that case alone (to profile it with --cpu-prof). */
const onlyCase = (benchCase: CpuCase) =>
  process.env.BENCH_CPU_CASE === undefined || benchCase.name === process.env.BENCH_CPU_CASE;

async function benchState(): Promise<MemoryState> {
  const created = Date.parse('2026-01-01T00:00:00.000Z');
  const userFiles: UserFile[] = Array.from({ length: 1000 }, (_, i) => ({
    id: i + 1,
    userId: USER,
    name: `quarterly report ${String(i + 1)}.pdf`,
    type: i % 2 === 0 ? 'deck' : null,
    createdAt: new Date(created + i * 60_000).toISOString(),
    updatedAt: null,
    isArchived: false,
    filesize: 1000 + i,
    location: `s3://bench-bucket/users/${String(USER)}/files/${String(i + 1)}`,
  }));
  const dealFiles: DealFile[] = [
    {
      id: 1,
      groupId: 1,
      dealId: 1,
      name: 'teaser.pdf',
      type: null,
      createdAt: new Date(created).toISOString(),
      updatedAt: null,
      isArchived: false,
      filesize: 12_345,
      location: 's3://bench-bucket/groups/1/deals/1/files/1',
    },
  ];
  const groups = Array.from({ length: 50 }, (_, i) => i + 1);
  return {
    userFiles,
    dealFiles,
    roles: new Map(groups.map((group) => [group, 'editor'])),
    deals: new Set(groups.map((group) => `${String(group)}:1`)),
    keys: await withNewKey({ keys: [] }, new Date(created), {
      activateInSeconds: 0,
      tokenSeconds: 3600,
    }),
  };
}

function cases(state: MemoryState): CpuCase[] {
  const rooms = (count: number) =>
    Array.from({ length: count }, (_, i) => `production:v1:group:${String(i + 1)}:deal:1`);
  const tokenEvent = (count: number) =>
    jsonEvent('POST /api/v1/auth/get-realtime-token', { room_ids: rooms(count) });
  // The same claims, signed with the same key by the same signer: what any token route must do.
  const signFloor = (event: ApiEvent, count: number) => (responseBody: string) => {
    const response: unknown = JSON.parse(responseBody);
    const granted = Object.fromEntries(
      rooms(count).map((room) => [room, ['read', 'write'] as const]),
    );
    return () => {
      JSON.parse(event.body ?? 'null');
      signRealtimeToken(state.keys, new Date(), {
        issuer: SETTINGS.REALTIME_ISSUER,
        audience: SETTINGS.REALTIME_AUDIENCE,
        subject: String(USER),
        tokenSeconds: 3600,
        rooms: granted,
      });
      return Promise.resolve(JSON.stringify(response));
    };
  };
  const content = Buffer.alloc(4 * 1024 * 1024, 7);
  const form = uploadForm(content, { name: 'bench.bin', type: 'raw_data' });
  const uploadEvent = apiEvent({
    routeKey: 'POST /api/v1/user/me/file',
    claims,
    body: form.body,
    contentType: form.contentType,
  });
  const boundary = Buffer.from(`--${/boundary=(.+)$/.exec(form.contentType)?.[1] ?? ''}`);
  const notify = jsonEvent('POST /api/v1/user/me/file/notify', {
    file_ids: Array.from({ length: 100 }, (_, i) => i + 1),
    fund_name: 'Fund IV',
    message: 'Q3 numbers attached.',
  });
  const tenErrors = jsonEvent('POST /api/v1/user/me/file/notify', {
    file_ids: Array.from({ length: 10 }, (_, i) => `file ${String(i)}`),
  });
  const putDealFile = jsonEvent(
    'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
    { type: 'deck' },
    { group_id: '1', deal_id: '1', file_id: '1' },
  );
  // Issue 41: a run of slashes before the last segment once cost time quadratic in its length.
  const slashes = unmatched(`/${'/'.repeat(15_500)}a/`);
  const token0 = tokenEvent(0);
  const token50 = tokenEvent(50);
  return [
    {
      name: 'list 1,000 files',
      entry: 'list-user-files',
      event: apiEvent({ routeKey: 'GET /api/v1/user/me/file', claims }),
      status: 200,
      floor: (responseBody) => {
        const response: unknown = JSON.parse(responseBody);
        return () => JSON.stringify(response);
      },
      floorName: 'serialising the response',
      budget: 2,
    },
    {
      name: 'multipart upload of 4 MiB',
      entry: 'upload-user-file',
      event: uploadEvent,
      status: 201,
      floor: (responseBody) => {
        const response: unknown = JSON.parse(responseBody);
        return () => {
          // Lambda hands the form over in base64; the file part lies between two boundaries.
          const raw = Buffer.from(uploadEvent.body ?? '', 'base64');
          const part = raw.subarray(raw.indexOf(boundary), raw.lastIndexOf(boundary));
          // Every stored byte's SHA-256 is recorded: one pass over the file is the least any
          // upload must do now (docs/benchmarks.md, "SHA-256 per MB").
          createHash('sha256').update(part).digest('base64');
          return JSON.stringify(response);
        };
      },
      floorName: 'base64-decoding the form, finding its part, hashing it (SHA-256), serialising',
      // The hash is most of the floor: a second pass over the bytes would show as about 2.
      budget: 1.5,
    },
    {
      name: 'token, 0 rooms',
      entry: 'get-realtime-token',
      event: token0,
      status: 200,
      floor: signFloor(token0, 0),
      floorName: 'parsing, signing the same claims, serialising',
      budget: 6,
    },
    {
      name: 'token, 50 rooms',
      entry: 'get-realtime-token',
      event: token50,
      status: 200,
      floor: signFloor(token50, 50),
      floorName: 'parsing, signing the same claims, serialising',
      budget: 4.5,
    },
    {
      name: 'notify, 100 file ids',
      entry: 'notify-submission',
      event: notify,
      status: 202,
      floor: parseAndWrite(notify),
      floorName: 'parsing the body, serialising the response',
      budget: 150,
    },
    {
      name: 'PUT deal file',
      entry: 'update-deal-file',
      event: putDealFile,
      status: 200,
      floor: parseAndWrite(putDealFile),
      floorName: 'parsing the body, serialising the response',
      budget: 90,
    },
    {
      name: '422 with ten errors',
      entry: 'notify-submission',
      event: tenErrors,
      status: 422,
      floor: parseAndWrite(tenErrors),
      floorName: 'parsing the body, serialising the 422',
      budget: 90,
    },
    {
      name: '404 for 15,500 slashes, then a/',
      entry: 'route-not-found',
      event: slashes,
      status: 404,
      // Not the least any route must do: the same answer to a short path, so that what the
      // slashes add shows.
      floor: (_body, handler) => () =>
        handler(unmatched('/a/'), localLambdaContext('route-not-found', 30_000)),
      floorName: 'the same 404 for /a/',
      // 0.95–0.97 on 2026-11-28, where the regex it replaced measured 800.
      budget: 1.5,
    },
  ];
}

/** CPU microseconds of every thread while `work` runs, `times` times over, per run. */
async function cpuOf(work: () => unknown, times = 1): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / times;
}

/**
 * How many times to run a floor per measurement so that one takes at least 200 µs: a
 * floor of a few microseconds is otherwise below what the clock tells apart.
 */
async function repeatsFor(work: () => unknown): Promise<number> {
  const once = await cpuOf(work, 10);
  return Math.min(100, Math.max(1, Math.ceil(200 / Math.max(once, 1))));
}

/** Runs `work` with the process's standard output going nowhere. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = () => true;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
}

export async function benchCpu(): Promise<{ report: string; figures: Figure[] }> {
  // As deployed: logs at INFO, metrics on (Lambda's variables are read when first used).
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_METRICS_NAMESPACE = 'FileService/bench';
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  const state = await benchState();
  const adapters = memoryAdapters(state);
  const prepared: (CpuCase & {
    invocation: () => () => Promise<ApiResult>;
    floorWork: () => unknown;
    floorRepeats: number;
  })[] = [];
  // One at a time: each first answer is checked while the output is silenced.
  for (const benchCase of cases(state).filter(onlyCase)) {
    const module = (await import(`#functions/${benchCase.entry}/handler.ts`)) as HandlerModule;
    const handler = module.createHandler?.(adapters, SETTINGS) ?? module.handler;
    if (handler === undefined) throw new Error(`${benchCase.entry} exports no handler`);
    // A context per invocation: each counts its remaining time down from its own start.
    const invocation = () => {
      const context = localLambdaContext(benchCase.entry, 30_000);
      return async () => {
        const result = await handler(benchCase.event, context);
        if (result.statusCode !== benchCase.status) {
          throw new Error(`${benchCase.name}: ${String(result.statusCode)} ${result.body ?? ''}`);
        }
        return result;
      };
    };
    const first = await quietly(invocation());
    const floorWork = benchCase.floor(first.body ?? '', handler);
    prepared.push({
      ...benchCase,
      invocation,
      floorWork,
      // Quietly too: a floor may be a handler, which logs.
      floorRepeats: await quietly(() => repeatsFor(floorWork)),
    });
  }
  const own = new Map<string, number[]>();
  const floors = new Map<string, number[]>();
  await quietly(async () => {
    for (let run = -Math.min(100, RUNS); run < RUNS; run++) {
      for (const benchCase of prepared) {
        const spent = await cpuOf(benchCase.invocation());
        const floor = await cpuOf(benchCase.floorWork, benchCase.floorRepeats);
        // The first runs warm the JIT, and are not counted.
        if (run < 0) continue;
        own.set(benchCase.name, [...(own.get(benchCase.name) ?? []), spent]);
        floors.set(benchCase.name, [...(floors.get(benchCase.name) ?? []), floor]);
      }
    }
  });
  const figures: Figure[] = prepared.map((benchCase) => ({
    name: benchCase.name,
    unit: 'µs',
    ...spreadOf(own.get(benchCase.name) ?? []),
    floor: median(floors.get(benchCase.name) ?? []),
    floorName: benchCase.floorName,
    target: benchCase.budget,
  }));
  return {
    figures,
    report: `
CPU time per request in process, ports answered from memory, ${String(RUNS)} runs each (budget: handler median / floor median)
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
`,
  };
}
