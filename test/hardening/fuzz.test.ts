/**
 * Random and hostile bodies at every JSON endpoint and at the multipart upload: never a 5xx,
 * every refusal a FastAPI-shaped 4xx the OpenAPI document describes, and a refused request
 * stores nothing.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_OPERATIONS, API_ROUTES, type RouteKey } from '#functions/service-functions.ts';
import { type ApiRoute, routeKey } from '#shared/api/routes.ts';
import { userFileObjectKey } from '#shared/storage/keys.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { jsonBodyLimit } from '#shared/http/json-body-limit.ts';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { multipartBody } from '#test/support/multipart.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { loadRouteFacts, type OwnedIds } from '#test/support/route-facts.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const FACTS = await loadRouteFacts();
const USER = 5100;
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
/** Reproduce a failure with FUZZ_SEED=<the seed it printed>. */
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

// Seeded ids sit far above what the stage's id allocator hands out, so no upload lands on them.
const SEEDED_FILE = 900_001;
const SEEDED_DEAL_FILE = 900_002;
const OWNED: OwnedIds = {
  file: SEEDED_FILE,
  group: 51,
  deal: 1,
  dealFile: SEEDED_DEAL_FILE,
  // None seeded: no route with a JSON body names them.
  pendingUpload: 900_003,
  notification: 'cccccccc-0000-4000-8000-000000000001',
};

beforeAll(async () => {
  await stage().put([
    toUserFileItem({
      id: SEEDED_FILE,
      userId: USER,
      name: 'mine.pdf',
      type: 'deck',
      createdAt: '2026-11-21T08:00:00.000Z',
      updatedAt: null,
      isArchived: false,
      filesize: 5,
      location: `s3://${stage().bucket}/${userFileObjectKey(USER, SEEDED_FILE)}`,
    }),
  ]);
  await stage().s3.send(
    new PutObjectCommand({
      Bucket: stage().bucket,
      Key: userFileObjectKey(USER, SEEDED_FILE),
      Body: 'bytes',
    }),
  );
  await seedDeals(stage(), {
    groups: [OWNED.group],
    members: [{ groupId: OWNED.group, userId: USER, role: 'editor' }],
    deals: [{ groupId: OWNED.group, dealId: OWNED.deal }],
    files: [dealFile(OWNED.group, OWNED.deal, SEEDED_DEAL_FILE)],
  });
});

/** Anything JSON can hold, unicode and deep nesting included. */
const jsonValue = fc.jsonValue({ maxDepth: 6 });
const hugeString = fc.string({ minLength: 20_000, maxLength: 60_000, unit: 'grapheme' });

/** A valid body padded with a field of numbers to `bytes`, give or take a few. */
const padded = (valid: Readonly<Record<string, unknown>>, bytes: number, lexeme: string) => {
  const head = JSON.stringify({ ...valid, pad: [] }).slice(0, -2);
  const count = Math.max(0, Math.floor((bytes - head.length - 2) / (lexeme.length + 1)));
  return Buffer.from(`${head}${Array(count).fill(lexeme).join(',')}]}`);
};

/**
 * A route's valid body (its route facts' request), then every field (or the whole) swapped
 * for junk.
 */
const bodyFor = (valid: Readonly<Record<string, unknown>>, limit: number) =>
  fc.oneof(
    // Around the route's body limit and far past it, of the numbers that cost most to read.
    fc
      .tuple(
        fc.integer({ min: limit - 64, max: 4 * 1024 * 1024 }),
        fc.constantFrom('1.5', '1.0', '1e15', '123456789012345678901234567890', '-0.00001'),
      )
      .map(([bytes, lexeme]) => padded(valid, bytes, lexeme)),
    // A valid body with fields swapped for junk, or extra ones added.
    fc
      .record(
        Object.fromEntries(
          Object.entries(valid).map(([field, value]) => [
            field,
            fc.oneof(fc.constant(value), jsonValue, hugeString, fc.constant(undefined)),
          ]),
        ),
      )
      .chain((fields) =>
        fc
          .dictionary(fc.string(), jsonValue, { maxKeys: 3 })
          .map((extra) => ({ ...extra, ...fields })),
      )
      .map((value) => Buffer.from(JSON.stringify(value))),
    jsonValue.map((value) => Buffer.from(JSON.stringify(value))),
    // Nested right at Python's limit and past it, inside a field too.
    fc
      .tuple(fc.integer({ min: 995, max: 1_005 }), fc.constantFrom(...Object.keys(valid)))
      .map(([depth, field]) =>
        Buffer.from(
          JSON.stringify({ ...valid, [field]: '<nested>' }).replace(
            '"<nested>"',
            `${'['.repeat(depth)}${']'.repeat(depth)}`,
          ),
        ),
      ),
    fc
      .integer({ min: 995, max: 1_005 })
      .map((depth) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
    // Nested past any parser's stack.
    fc
      .integer({ min: 1_000, max: 200_000 })
      .map((depth) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
    // Cut short anywhere.
    fc.nat().map((cut) => {
      const text = JSON.stringify(valid);
      return Buffer.from(text.slice(0, cut % text.length));
    }),
    fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: 'binary' }).map((text) => Buffer.from(text, 'utf16le')),
  );

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-16',
    'application/vnd.api+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
    'application/json/extra',
  ),
  fc.string({ maxLength: 40 }),
);

/**
 * Everything stored, but where a queued notification's worker has got to: an earlier run's
 * accepted submission is delivered while later runs go on.
 */
async function stored() {
  const { items, objects } = await stage().stored();
  return {
    items: items.map((item) =>
      String(item.SK).startsWith('NOTIFICATION#') ? { PK: item.PK, SK: item.SK } : item,
    ),
    objects,
  };
}

/** What a request must never get, and how a refusal must look. */
async function judge(response: Response, stored: () => Promise<unknown>, before: unknown) {
  const text = await response.text();
  const problems = stage().takeContractViolations();
  expect(problems, text).toEqual([]);
  expect(response.status, text).toBeLessThan(500);
  if (response.status >= 400) {
    // FastAPI's shape, and only it: the fuzz never reaches API Gateway's own refusals.
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body), text).toEqual(['detail']);
    expect(typeof body.detail === 'string' || Array.isArray(body.detail), text).toBe(true);
    expect(await stored()).toEqual(before);
  }
}

const limitOf = (route: ApiRoute): number => {
  const schema = API_OPERATIONS[routeKey(route) as RouteKey].request.body;
  return schema === undefined ? 0 : jsonBodyLimit(schema);
};

const jsonRoutes = API_ROUTES.filter(
  (route) => API_OPERATIONS[routeKey(route) as RouteKey].request.body !== undefined,
);

describe('fuzzing the JSON endpoints', () => {
  it('has a valid body for every JSON route, and for no other', () => {
    // A JSON route whose route facts give no body fails here, naming the file.
    for (const route of jsonRoutes) FACTS.requestOf(route, OWNED);
    const given = API_ROUTES.filter((route) => FACTS.of(route).request?.(OWNED).json !== undefined);
    expect(given.map(routeKey).sort()).toEqual(jsonRoutes.map(routeKey).sort());
  });

  it.each(jsonRoutes.map((route) => [routeKey(route), route] as const))(
    '%s: never a 5xx, every refusal a documented FastAPI 4xx, nothing stored',
    async (_key, route) => {
      const { path, json: valid = {} } = FACTS.requestOf(route, OWNED);
      await fc.assert(
        fc.asyncProperty(bodyFor(valid, limitOf(route)), contentType, async (body, type) => {
          const before = await stored();
          const response = await stage().request(path, {
            method: route.method,
            as: USER,
            headers: type === '' ? {} : { 'content-type': type },
            body,
            signal: AbortSignal.timeout(waitLimit(10_000)),
          });
          await judge(response, stored, before);
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
      );
    },
  );
});

describe('fuzzing the multipart upload', () => {
  const part = fc.record({
    name: fc.oneof(fc.constantFrom('file', 'name', 'type'), fc.string({ maxLength: 20 })),
    value: fc.oneof(
      fc.constantFrom('deck', 'report.pdf', ''),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      hugeString,
      fc.uint8Array({ maxLength: 3_000 }).map((bytes) => Buffer.from(bytes)),
    ),
    filename: fc.option(fc.string({ unit: 'grapheme', maxLength: 80 }), { nil: undefined }),
    contentType: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  });
  const form = fc.record({
    parts: fc.array(part, { maxLength: 6 }),
    boundary: fc.stringMatching(/^[0-9A-Za-z'()+_,-./:=?]{1,70}$/),
    cut: fc.option(fc.nat(), { nil: undefined }),
    declaredType: fc.oneof(
      fc.constant('form'),
      fc.constantFrom(
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'application/json',
        'text/plain',
      ),
    ),
  });

  it('never a 5xx, every refusal a documented FastAPI 4xx, a refused upload stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(form, async ({ parts, boundary, cut, declaredType }) => {
        const built = multipartBody(
          parts.map((p) => ({
            name: p.name.replace(/["\r\n]/g, ''),
            value: p.value,
            ...(p.filename === undefined ? {} : { filename: p.filename.replace(/["\r\n]/g, '') }),
            ...(p.contentType === undefined
              ? {}
              : { contentType: p.contentType.replace(/[\r\n]/g, '') }),
          })),
          boundary,
        );
        const body =
          cut === undefined ? built.body : built.body.subarray(0, cut % (built.body.length + 1));
        const before = await stored();
        const response = await stage().request('/api/v1/user/me/file', {
          method: 'POST',
          as: USER,
          headers: { 'content-type': declaredType === 'form' ? built.contentType : declaredType },
          body,
          // A request that hangs fails too.
          signal: AbortSignal.timeout(waitLimit(10_000)),
        });
        await judge(response, stored, before);
      }),
      { numRuns: RUNS * 2, endOnFailure: true, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});
