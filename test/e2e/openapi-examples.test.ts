import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_BUCKET, EXAMPLE_BUCKET_URL } from '#shared/api/examples.ts';
import { jsonBodyLimit } from '#shared/http/json-body-limit.ts';
import {
  API_OPERATIONS,
  API_ROUTES,
  type RouteKey,
  SERVICE_FUNCTIONS,
} from '#functions/service-functions.ts';
import {
  type Answer,
  answerOf,
  type DeclaredSituations,
  EXAMPLE_OWNER,
  json,
  seedExampleData,
  type Situation,
  type SituationKit,
  ticketOf,
} from '#test/support/example-situations.ts';
import {
  type FaultAnswer,
  type FaultProxy,
  type ProxiedCall,
  startFaultProxy,
} from '#test/support/fault-proxy.ts';
import { type HoldingProxy, startHoldingProxy } from '#test/support/holding-proxy.ts';
import { loadRouteFacts, routeFileOf, SHARED_ANSWERS_FILE } from '#test/support/route-facts.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import SHARED_ANSWERS from '#test/routes/shared-answers.ts';

/**
 * Every example /openapi.json shows (and so /docs) is an answer the route really gives. Each
 * function's file of route facts, `test/routes/<function folder>.ts` (found through the
 * functions list), makes the situations of its routes' examples (`examples`), and
 * `test/routes/shared-answers.ts` those of the answers the routes share; the usual answers of a
 * route this test makes from its declaration itself (`derivedSituations`). All run on one local stage, and each example must
 * equal its real answer up to what varies between runs (`normalise`, below, says what).
 */

let dynamodb: { faults: FaultProxy; holds: HoldingProxy } | undefined;
let s3: { faults: FaultProxy; holds: HoldingProxy } | undefined;
const proxies = () => {
  if (dynamodb === undefined || s3 === undefined) throw new Error('The stage starts first');
  return { dynamodb, s3 };
};
/** Handler → faults → holds → stand-in: a call can fail as AWS fails, or wait. */
const inFront = async (real: string) => {
  const holds = await startHoldingProxy(real);
  return { holds, faults: await startFaultProxy(holds.url) };
};

// Registered first, so it runs after the stage has closed (after-hooks run in reverse).
afterAll(async () => {
  await Promise.all(
    [dynamodb, s3].flatMap((p) => (p === undefined ? [] : [p.faults.close(), p.holds.close()])),
  );
});
const stage = useTestStage(() => ({
  // One notify a user, then one a minute: the allowance's 429 comes on a second call.
  settings: { NOTIFY_BURST: 1, NOTIFY_RATE_PER_MINUTE: 1 },
  handlerEndpoints: async (real) => {
    dynamodb = await inFront(real.dynamodb);
    s3 = await inFront(real.s3);
    return { dynamodb: dynamodb.faults.url, s3: s3.faults.url };
  },
}));

/** A request as `as` (no token without one), and its answer. */
const call: SituationKit['call'] = async (method, path, init = {}) => {
  const { sent, ...rest } = init;
  return answerOf(await stage().request(path, { method, redirect: 'manual', ...rest }), sent);
};

/** Users and groups no situation shares, counted from above the examples' own ids. */
let lastId = 100;
const newId = () => ++lastId;

/** Where an example's situation belongs, for a failure message. */
function homeOf(situation: string): string {
  const route = API_ROUTES.find((r) => `${situation} `.startsWith(`${r.method} ${r.path} `));
  const fn = SERVICE_FUNCTIONS.find((f) => f.id === route?.functionId);
  return fn === undefined ? SHARED_ANSWERS_FILE : `${routeFileOf(fn)} (${fn.id}'s examples)`;
}

const PHASES = ['first', 'together', 'alone'] as const;
type PhaseName = (typeof PHASES)[number];

interface PlannedSituation {
  readonly key: string;
  readonly phase: PhaseName;
  readonly run: Situation;
}

/** What the route facts declare: every situation, and the examples made elsewhere. */
interface Declared {
  readonly situations: readonly PlannedSituation[];
  readonly elsewhere: ReadonlyMap<string, string>;
}

/** The situations and examples made elsewhere of one file, each named for an answer `isOwn`. */
function declaredIn(
  file: string,
  situations: DeclaredSituations<string>,
  isOwn: (key: string) => boolean,
  into: { situations: PlannedSituation[]; elsewhere: Map<string, string> },
): void {
  const { elsewhere = {}, ...phases } = situations;
  const keys = [
    ...Object.keys(elsewhere),
    ...PHASES.flatMap((phase) => Object.keys(phases[phase] ?? {})),
  ];
  for (const key of keys) {
    if (!isOwn(key)) throw new Error(`${file} makes ${key}, which is none of its answers`);
  }
  for (const [key, where] of Object.entries(elsewhere)) {
    if (where !== undefined) into.elsewhere.set(key, where);
  }
  for (const phase of PHASES) {
    for (const [key, run] of Object.entries(phases[phase] ?? {})) {
      if (run !== undefined) into.situations.push({ key, phase, run });
    }
  }
}

/**
 * Every function's examples, in the functions list's order, and the shared answers': a
 * function with examples no situation here or in `derivedSituations` makes fails the test,
 * naming the file to write them in.
 */
async function declaredSituations(sharedAnswers: ReadonlySet<string>): Promise<Declared> {
  const into = { situations: [] as PlannedSituation[], elsewhere: new Map<string, string>() };
  for (const { fn, file, declared } of (await loadRouteFacts()).functions) {
    const routes = API_ROUTES.filter((route) => route.functionId === fn.id).map(
      (route) => `${route.method} ${route.path} `,
    );
    const isOwn = (key: string) => routes.some((route) => key.startsWith(route));
    declaredIn(file, declared.examples ?? {}, isOwn, into);
  }
  declaredIn(SHARED_ANSWERS_FILE, SHARED_ANSWERS, (key) => sharedAnswers.has(key), into);
  return into;
}

/**
 * Runs the situations phase by phase (`first`, `together`, then `alone` one at a time), each
 * given a kit whose `answer` waits for another situation's answer: one of its own phase or an
 * earlier one, and never one that waits, however indirectly, for it.
 */
function situationRun(declared: readonly PlannedSituation[]) {
  const started = new Map<string, Promise<Answer>>();
  const waitsFor = new Map<string, Set<string>>();
  const faultRules: ((call: ProxiedCall) => FaultAnswer | undefined)[] = [];
  proxies().dynamodb.faults.setPlan((proxied) => {
    for (const rule of faultRules) {
      const answer = rule(proxied);
      if (answer !== undefined) return answer;
    }
    return undefined;
  });
  /** Whether `from` waits, however indirectly, for `to`. */
  const reaches = (from: string, to: string): boolean =>
    from === to || [...(waitsFor.get(from) ?? [])].some((next) => reaches(next, to));
  const kitOf = (key: string): SituationKit => ({
    stage: stage(),
    call,
    newUser: newId,
    newGroup: newId,
    answer: (wanted) => {
      const answer = started.get(wanted);
      if (answer === undefined) {
        const later = declared.find((s) => s.key === wanted);
        throw new Error(
          later === undefined
            ? `${key} waits for ${wanted}, which no situation makes`
            : `${key} waits for ${wanted}, which runs after it (${later.phase})`,
        );
      }
      if (reaches(wanted, key)) throw new Error(`${key} and ${wanted} wait for each other`);
      waitsFor.set(key, new Set([...(waitsFor.get(key) ?? []), wanted]));
      return answer;
    },
    failDynamoDb: (rule) => faultRules.push(rule),
    holds: { dynamodb: proxies().dynamodb.holds, s3: proxies().s3.holds },
  });
  const answersOf = async (running: readonly (readonly [string, Promise<Answer>])[]) =>
    Object.fromEntries(
      await Promise.all(running.map(async ([key, answer]) => [key, await answer] as const)),
    );
  return {
    /** The answers of a phase whose situations run together. */
    together(phase: Exclude<PhaseName, 'alone'>): Promise<Record<string, Answer>> {
      const running = declared
        .filter((s) => s.phase === phase)
        .map(({ key, run }) => {
          // Started once every one of its phase is known, so any may wait for any other.
          const answer = Promise.resolve().then(() => run(kitOf(key)));
          started.set(key, answer);
          return [key, answer] as const;
        });
      return answersOf(running);
    },
    /** The answers of the `alone` situations, each run once the one before has its answer. */
    async alone(): Promise<Record<string, Answer>> {
      const running: (readonly [string, Promise<Answer>])[] = [];
      for (const { key, run } of declared.filter((s) => s.phase === 'alone')) {
        const answer = run(kitOf(key));
        started.set(key, answer);
        running.push([key, answer]);
        await answer;
      }
      return answersOf(running);
    },
  };
}

/** A body one byte over what any valid request of the route can be. */
function oversized(key: RouteKey): RequestInit {
  const { body } = API_OPERATIONS[key].request;
  if (body === undefined) throw new Error(`${key} takes no JSON body`);
  return {
    headers: { 'content-type': 'application/json' },
    body: ' '.repeat(jsonBodyLimit(body) + 1),
  };
}

/**
 * The situations a route's usual answers need, read from its own declaration: so a new route
 * whose examples are of these kinds needs no situation of its own. Each is made only where no
 * route's file gives the answer. With the parameters' examples (the seeded deal file is theirs):
 * - a GET's 200, as the owner of the examples' files;
 * - a 404 "Not Found", as a user in no group who owns nothing;
 * - a 413 of a JSON body, one byte over what any valid request of the route can be;
 * - a 422 `int_parsing` of a path id, with the example's input in that id.
 * They run after the situations of the `first` and `together` phases (the PUT's 200 has then
 * set the deal file's `updated_at`, as the example shows) and before the `alone` ones.
 */
async function derivedSituations(
  document: ServedDocument,
  given: Readonly<Record<string, Answer>>,
): Promise<Record<string, Answer>> {
  const derived: [string, Promise<Answer>][] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const route = `${method.toUpperCase()} ${path}`;
      const parameters = Object.fromEntries(
        (operation.parameters ?? []).map(({ name, example }) => [name, example]),
      );
      const at = (values: Readonly<Record<string, unknown>>) =>
        path.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
      const jsonRequest = operation.requestBody?.content['application/json'];
      const body = jsonRequest?.example;
      const sending = body === undefined ? {} : json(body);
      for (const [code, answer] of Object.entries(operation.responses)) {
        const key = `${route} ${code}`;
        const example = answer.content?.['application/json']?.example as
          { readonly detail?: unknown } | undefined;
        if (key in given || example === undefined) continue;
        const [error] = Array.isArray(example.detail)
          ? (example.detail as { type?: string; loc?: unknown[]; input?: unknown }[])
          : [];
        if (code === '200' && method === 'get' && body === undefined) {
          derived.push([
            key,
            call('GET', at(parameters), { as: EXAMPLE_OWNER, sent: { parameters } }),
          ]);
        } else if (code === '404' && example.detail === 'Not Found') {
          derived.push([
            key,
            call(method.toUpperCase(), at(parameters), { as: newId(), ...sending }),
          ]);
        } else if (code === '413' && jsonRequest !== undefined) {
          derived.push([
            key,
            call(method.toUpperCase(), at(parameters), {
              as: newId(),
              ...oversized(route as RouteKey),
            }),
          ]);
        } else if (code === '422' && error?.type === 'int_parsing' && error.loc?.[0] === 'path') {
          const wrong = { ...parameters, [String(error.loc[1])]: error.input };
          derived.push([key, call(method.toUpperCase(), at(wrong), { as: newId(), ...sending })]);
        }
      }
    }
  }
  return Object.fromEntries(
    await Promise.all(derived.map(async ([key, answer]) => [key, await answer] as const)),
  );
}

/** The parts of the served document that hold examples. */
interface MediaObject {
  readonly example?: unknown;
}
interface HeaderObject {
  readonly schema?: { readonly examples?: readonly unknown[] };
}
interface ResponseObject {
  readonly $ref?: string;
  readonly content?: Readonly<Record<string, MediaObject>>;
  readonly headers?: Readonly<Record<string, HeaderObject>>;
}
interface OperationObject {
  readonly parameters?: readonly { readonly name: string; readonly example?: unknown }[];
  readonly requestBody?: { readonly content: Readonly<Record<string, MediaObject>> };
  readonly responses: Readonly<Record<string, ResponseObject>>;
}
interface ServedDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
  readonly components: { readonly responses: Readonly<Record<string, ResponseObject>> };
}

/** One example the document shows, and the situation whose real answer it must equal. */
interface DocumentedExample {
  /** Where it is, for the failure message. */
  readonly where: string;
  readonly kind: 'response' | 'header' | 'request' | 'parameter';
  /** `<METHOD> <path> <status>`, or a shared answer's component name. */
  readonly situation: string;
  readonly status?: number;
  readonly mediaType?: string;
  readonly name?: string;
  readonly value: unknown;
}

/** The answers no route refers to: what a request that matches no route gets. */
const UNMATCHED_STATUS: Readonly<Record<string, number>> = {
  NotFound: 404,
  MethodNotAllowed: 405,
  TrailingSlashRedirect: 307,
};

function answerExamples(
  answer: ResponseObject,
  situation: string,
  status: number,
): DocumentedExample[] {
  return [
    ...Object.entries(answer.content ?? {}).flatMap(([mediaType, media]) =>
      media.example === undefined
        ? []
        : [
            {
              where: `${situation} ${mediaType}`,
              kind: 'response' as const,
              situation,
              status,
              mediaType,
              value: media.example,
            },
          ],
    ),
    ...Object.entries(answer.headers ?? {}).flatMap(([name, header]) =>
      (header.schema?.examples ?? []).map((value) => ({
        where: `${situation} header ${name}`,
        kind: 'header' as const,
        situation,
        status,
        name,
        value,
      })),
    ),
  ];
}

/** Every example in the document: parameters, request bodies, answers and their headers. */
function documentedExamples(document: ServedDocument): DocumentedExample[] {
  const found: DocumentedExample[] = [];
  const shared = new Map<string, number>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const route = `${method.toUpperCase()} ${path}`;
      for (const { name, example } of operation.parameters ?? []) {
        if (example !== undefined) {
          found.push({
            where: `${route} parameter ${name}`,
            kind: 'parameter',
            situation: route,
            name,
            value: example,
          });
        }
      }
      for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (media.example !== undefined) {
          found.push({
            where: `${route} request ${mediaType}`,
            kind: 'request',
            situation: route,
            mediaType,
            value: media.example,
          });
        }
      }
      for (const [code, answer] of Object.entries(operation.responses)) {
        const component = answer.$ref?.split('/').at(-1);
        if (component === undefined)
          found.push(...answerExamples(answer, `${route} ${code}`, Number(code)));
        else if (!shared.has(component)) shared.set(component, Number(code));
      }
    }
  }
  for (const [name, answer] of Object.entries(document.components.responses)) {
    const status = shared.get(name) ?? UNMATCHED_STATUS[name];
    if (status === undefined) throw new Error(`No route answers with ${name}`);
    found.push(...answerExamples(answer, name, status));
  }
  return found;
}

/** What a real answer holds that differs from run to run, and the stage's own names. */
interface Varying {
  readonly bucket: string;
  /** Where this stage's bucket is reached, without a trailing slash. */
  readonly bucketUrl: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The one place that says what may differ between an example and its real answer: the ids
 * the run assigns (files, uploads, notifications), timestamps, signatures and signed tokens,
 * key material, paging cursors, the bucket's name and address, and a room's stage.
 * Everything else must be equal.
 */
const VARYING_STRINGS: readonly [RegExp, string][] = [
  [/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>'],
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'],
  [/(files\/|uploads\/\d+\/)\d+/g, '$1<id>'],
  [/cursor=[\w-]+/g, 'cursor=<cursor>'],
  [/(X-Amz-(?:Credential|Date|Signature)=)[^&]+/g, '$1<signed>'],
  [/^(production|development|local):v1:/, '<stage>:v1:'],
];
/** Fields whose whole value varies: signatures, tokens, key material. */
const VARYING_FIELDS = new Set([
  'Policy',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Date',
  'token',
  'kid',
  'x',
  'y',
]);
/** Fields that hold the ids of files or uploads. */
const ID_FIELDS = new Set(['id', 'file_ids', 'file_id']);

function normalise(value: unknown, varying: Varying, field?: string): unknown {
  if (typeof value === 'string') {
    if (field !== undefined && VARYING_FIELDS.has(field)) return '<varies>';
    if (value === varying.bucket || value === EXAMPLE_BUCKET) return '<bucket>';
    let text = value
      .replaceAll(varying.bucketUrl, '<bucket url>')
      .replaceAll(EXAMPLE_BUCKET_URL, '<bucket url>')
      .replaceAll(`s3://${varying.bucket}/`, 's3://<bucket>/')
      .replaceAll(`s3://${EXAMPLE_BUCKET}/`, 's3://<bucket>/');
    for (const [pattern, replacement] of VARYING_STRINGS) text = text.replace(pattern, replacement);
    // A virtual-hosted bucket's URL (deployed) ends in `/`, a path-style one (local) does not.
    return text === '<bucket url>/' ? '<bucket url>' : text;
  }
  if (typeof value === 'number' && field !== undefined && ID_FIELDS.has(field)) return '<id>';
  if (Array.isArray(value)) return value.map((item) => normalise(item, varying, field));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        // Only a signer with a session (a deployed function's role) sends one.
        .filter(([key]) => key !== 'X-Amz-Security-Token')
        .map(([key, item]) => [key, normalise(item, varying, key)]),
    );
  }
  return value;
}

/** An example abbreviates text with `…`: the real text, where it fits, as the example says it. */
function abbreviated(real: unknown, example: unknown): unknown {
  if (typeof example === 'string' && typeof real === 'string' && example.includes('…')) {
    const pattern = example.split('…').map(escapeRegExp).join('[\\s\\S]*');
    if (new RegExp(`^${pattern}$`).test(real)) return example;
    return real.length > 200 ? `${real.slice(0, 200)}… (not as the example)` : real;
  }
  if (Array.isArray(real) && Array.isArray(example)) {
    return real.map((item, index) => abbreviated(item, example[index]));
  }
  if (
    typeof real === 'object' &&
    real !== null &&
    typeof example === 'object' &&
    example !== null
  ) {
    return Object.fromEntries(
      Object.entries(real).map(([key, item]) => [
        key,
        abbreviated(item, (example as Record<string, unknown>)[key]),
      ]),
    );
  }
  return real;
}

/** The real answer an example is held against, if this test produced it. */
function answerFor(
  answers: Readonly<Record<string, Answer>>,
  example: DocumentedExample,
): Answer | undefined {
  const { situation } = example;
  switch (example.kind) {
    case 'response':
      return answers[`${situation} ${example.mediaType ?? ''}`] ?? answers[situation];
    case 'header':
      return answers[`${situation} header ${example.name ?? ''}`] ?? answers[situation];
    case 'request':
      return Object.entries(answers).find(
        ([key, answer]) => key.startsWith(`${situation} 2`) && answer.sent?.body !== undefined,
      )?.[1];
    case 'parameter':
      return Object.entries(answers).find(
        ([key, answer]) =>
          new RegExp(`^${escapeRegExp(situation)} [23]`).test(key) &&
          answer.sent?.parameters?.[example.name ?? ''] !== undefined,
      )?.[1];
  }
}

function realValue(example: DocumentedExample, answer: Answer): unknown {
  switch (example.kind) {
    case 'response':
      expect.soft(answer.mediaType, example.where).toBe(example.mediaType);
      return answer.body;
    case 'header':
      return answer.headers[example.name ?? ''];
    case 'request':
      return answer.sent?.body;
    case 'parameter':
      return answer.sent?.parameters?.[example.name ?? ''];
  }
}

function compare(example: DocumentedExample, answer: Answer, varying: Varying): void {
  if (example.status !== undefined) expect.soft(answer.status, example.where).toBe(example.status);
  const field = example.kind === 'parameter' ? example.name : undefined;
  if (example.kind === 'header' && example.name === 'retry-after') {
    // Seconds until the allowance is back, counted from the call: a machine slow between the
    // call that spent it and the refused one gives fewer, never more, and never 0.
    const seconds = Number(realValue(example, answer));
    expect.soft(Number.isInteger(seconds) && seconds >= 1, example.where).toBe(true);
    expect.soft(seconds, example.where).toBeLessThanOrEqual(Number(example.value));
    return;
  }
  const expected = normalise(example.value, varying, field);
  const real = abbreviated(normalise(realValue(example, answer), varying, field), expected);
  expect.soft(real, example.where).toEqual(expected);
}

describe('the examples /docs shows', () => {
  it('are each an answer its route really gives', async () => {
    const document = (await (await stage().request('/openapi.json')).json()) as ServedDocument;
    const declared = await declaredSituations(new Set(Object.keys(document.components.responses)));
    await seedExampleData(stage());
    const run = situationRun(declared.situations);
    const given = { ...(await run.together('first')), ...(await run.together('together')) };
    const answers = {
      ...given,
      ...(await derivedSituations(document, given)),
      ...(await run.alone()),
    };
    const examples = documentedExamples(document);
    const signed = answers['POST /api/v1/user/me/file/upload 201'];
    if (signed === undefined)
      throw new Error('The signed form is every other answer’s bucket address');
    const varying = { bucket: stage().bucket, bucketUrl: ticketOf(signed).url.replace(/\/$/, '') };
    const unchecked: string[] = [];
    const used = new Set<Answer>();
    for (const example of examples) {
      const answer = answerFor(answers, example);
      if (answer === undefined) {
        if (!declared.elsewhere.has(example.situation)) {
          unchecked.push(`${example.where}: make its situation in ${homeOf(example.situation)}`);
        }
        continue;
      }
      used.add(answer);
      compare(example, answer, varying);
    }
    expect(unchecked, 'examples no situation makes real').toEqual([]);
    // A situation no example is held against is a misnamed one, or an example gone.
    const unused = Object.entries(answers).filter(([, answer]) => !used.has(answer));
    expect(
      unused.map(([key]) => key),
      'situations no example is held against',
    ).toEqual([]);
  });
});
