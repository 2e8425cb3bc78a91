/**
 * The docs function as it is deployed: bundled with the house esbuild settings, with the
 * route's `bundledFiles` copied beside the bundle by the same commands the CDK bundling runs.
 * Proves the bundle finds Swagger UI where Lambda will have it, and nowhere else.
 */
import type { Context } from 'aws-lambda';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFileCommands } from '#infra/constructs/service-function.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-events.ts';
import { LAMBDA_BUILD_OPTIONS } from '#test/support/lambda-build-options.ts';

const root = process.cwd();
const route = API_ROUTES.find((r) => r.path === '/docs/{asset}');
let dir = '';
let handler: (event: unknown, context: Context) => Promise<ApiResult>;

beforeAll(async () => {
  if (route === undefined) throw new Error('No /docs/{asset} route');
  // Outside the repository, so node_modules up the tree cannot stand in for the copy.
  dir = await mkdtemp(join(tmpdir(), 'api-docs-bundle-'));
  await build({
    ...LAMBDA_BUILD_OPTIONS,
    entryPoints: [join(root, route.entry)],
    outfile: join(dir, 'index.mjs'),
  });
  for (const command of bundledFileCommands(route.bundledFiles ?? [], root, dir)) {
    execFileSync('sh', ['-c', command]);
  }
  ({ handler } = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as {
    handler: typeof handler;
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const assetEvent = (asset: string) =>
  apiEvent({ routeKey: 'GET /docs/{asset}', pathParameters: { asset } });

describe('the deployed docs bundle', () => {
  it('serves Swagger UI from the files copied beside it', async () => {
    const result = await handler(assetEvent('swagger-ui-bundle.js'), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(result.isBase64Encoded).toBe(true);
    const expected = await readFile(
      join(root, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'),
    );
    expect(Buffer.from(result.body ?? '', 'base64').equals(expected)).toBe(true);
  });

  it('carries the licence of the files it ships', async () => {
    const notice = await readFile(join(dir, 'node_modules/swagger-ui-dist/NOTICE'), 'utf8');
    expect(notice).toContain('swagger-ui');
  });

  it('keeps its answers within what API Gateway passes back (6 MB)', async () => {
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
      const result = await handler(assetEvent(asset), lambdaContext());
      expect(result.statusCode).toBe(200);
      expect(JSON.stringify(result).length).toBeLessThan(6 * 1024 * 1024);
    }
  });
});
