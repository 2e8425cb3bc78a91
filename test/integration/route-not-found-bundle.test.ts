/**
 * The fallback as it is deployed: bundled with the house esbuild settings and the constants
 * the stack compiles in (`bundleConstantsOf`). Its bundle carries the route table as methods
 * and paths, and no route's operation (their documentation is the OpenAPI function's alone),
 * yet answers as the unbundled handler does.
 */
import type { Context } from 'aws-lambda';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleConstantsOf, FALLBACK_FUNCTION } from '#functions/service-functions.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-events.ts';
import { LAMBDA_BUILD_OPTIONS } from '#test/support/lambda-build-options.ts';

let dir = '';
let metafile: Metafile | undefined;
let handler: (event: unknown, context: Context) => Promise<ApiResult>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'route-not-found-bundle-'));
  ({ metafile } = await build({
    ...LAMBDA_BUILD_OPTIONS,
    define: { ...bundleConstantsOf(FALLBACK_FUNCTION) },
    entryPoints: [join(process.cwd(), FALLBACK_FUNCTION.entry)],
    outfile: join(dir, 'index.mjs'),
    metafile: true,
  }));
  ({ handler } = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as {
    handler: typeof handler;
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const request = (method: string, rawPath: string) => {
  const event = apiEvent({});
  return {
    ...event,
    rawPath,
    requestContext: { ...event.requestContext, http: { ...event.requestContext.http, method } },
  };
};

describe('the deployed fallback bundle', () => {
  it('holds no function declaration: no operation, no documentation', () => {
    const held = Object.values(metafile?.outputs ?? {}).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, used]) => used.bytesInOutput > 0)
        .map(([input]) => input),
    );
    expect(held.filter((input) => /functions\/[^/]+\/function\.ts$/.test(input))).toEqual([]);
    expect(held.some((input) => input.endsWith('functions/service-functions.ts'))).toBe(false);
  });

  it('answers 405 naming the method a path has, 307 without a trailing slash, else 404', async () => {
    const wrongMethod = await handler(request('POST', '/openapi.json'), lambdaContext());
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers?.allow).toBe('GET');
    const slash = await handler(request('GET', '/api/v1/user/me/file/'), lambdaContext());
    expect(slash.statusCode).toBe(307);
    expect(slash.headers?.location).toBe('/api/v1/user/me/file');
    const nothing = await handler(request('GET', '/api/v1/nothing'), lambdaContext());
    expect(nothing.statusCode).toBe(404);
    expect(JSON.parse(nothing.body ?? '')).toEqual({ detail: 'Not Found' });
  });
});
