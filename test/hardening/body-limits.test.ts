/**
 * Bounded work per request: every JSON route refuses a body larger than any valid request of
 * it before decoding (413, FastAPI's shape, nothing stored), reads one at its limit in
 * bounded time, and answers its worst 422 well inside Lambda's response limit.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { API_OPERATIONS, API_ROUTES, type RouteKey } from '#functions/service-functions.ts';
import { type ApiRoute, routeKey } from '#shared/api/routes.ts';
import { LAMBDA_MAX_RESPONSE_BYTES } from '#shared/http/answer-size.ts';
import { bodyTooLargeMessage, jsonBodyLimit } from '#shared/http/json-body-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();
const USER = 5300;

const jsonRoutes = API_ROUTES.flatMap((route) => {
  const schema = API_OPERATIONS[routeKey(route) as RouteKey].request.body;
  return schema === undefined ? [] : [[routeKey(route), route, jsonBodyLimit(schema)] as const];
});

const pathOf = (route: ApiRoute) =>
  route.path.replace('{group_id}', '1').replace('{deal_id}', '1').replace('{file_id}', '1');

/** `{"<field>": [<lexeme>, …]}` of exactly `bytes` bytes (padding with spaces). */
function bodyOf(field: string, lexeme: string, bytes: number): Buffer {
  const head = `{"${field}":[`;
  const count = Math.floor((bytes - head.length - 2) / (lexeme.length + 1));
  const text = `${head}${Array(count).fill(lexeme).join(',')}]}`;
  return Buffer.from(text.replace('[', `[${' '.repeat(bytes - text.length)}`));
}

/** The first list field of a route's body, or a field of its own when it has none. */
const listField = (route: ApiRoute): string => {
  const schema = API_OPERATIONS[routeKey(route) as RouteKey].request.body;
  const fields = schema instanceof z.ZodObject ? Object.entries(schema.shape) : [];
  return fields.find(([, field]) => field instanceof z.ZodArray)?.[0] ?? 'pad';
};

const send = (route: ApiRoute, body: Buffer) =>
  stage().request(pathOf(route), {
    method: route.method,
    as: USER,
    headers: { 'content-type': 'application/json' },
    body,
  });

describe('JSON body limits', () => {
  it('derives a limit for every JSON route, none above 128 KiB', () => {
    expect(jsonRoutes.length).toBeGreaterThan(0);
    for (const [, , limit] of jsonRoutes) expect(limit).toBeLessThanOrEqual(128 * 1024);
  });

  it.each(jsonRoutes)(
    '%s: one byte over the limit is a 413 before decoding, nothing stored',
    async (_key, route, limit) => {
      const before = await stage().stored();
      const response = await send(route, bodyOf(listField(route), '1.0', limit + 1));
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ detail: bodyTooLargeMessage(limit) });
      expect(await stage().stored()).toEqual(before);
    },
  );

  it.each(jsonRoutes)('%s: 4 MB of decimals is the same 413', async (_key, route, limit) => {
    const response = await send(route, bodyOf(listField(route), '1.5', 4 * 1024 * 1024));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: bodyTooLargeMessage(limit) });
  });

  it.each(jsonRoutes)(
    '%s: a body at the limit of numbers Python prints longer is read, and its 422 fits',
    async (_key, route, limit) => {
      const before = await stage().stored();
      const response = await send(route, bodyOf(listField(route), '1e15', limit));
      const text = await response.text();
      expect(response.status, text).toBeLessThan(500);
      expect(response.status, text).not.toBe(413);
      expect(Buffer.byteLength(text)).toBeLessThan(LAMBDA_MAX_RESPONSE_BYTES / 8);
      if (response.status === 422) expect(text).toContain('1000000000000000.0');
      expect(await stage().stored()).toEqual(before);
    },
  );
});
