import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import middy from '@middy/core';
import { isOneOf } from '#shared/domain/one-of.ts';
import { acceptsGzip, matchesEtag } from '#shared/docs/content-negotiation.ts';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  DOCS_PAGE_HTML,
  SWAGGER_INITIALIZER_JS,
} from '#shared/docs/docs-page.ts';
import {
  DOCS_ASSET_NAMES,
  type DocsAssetName,
  INITIALIZER_ASSET,
  SWAGGER_UI_ASSETS,
  SWAGGER_UI_PACKAGE,
} from '#shared/docs/swagger-ui-assets.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { NotFoundError } from '#shared/http/http-errors.ts';
import type { ApiResult } from '#shared/http/responses.ts';

const gzipped = promisify(gzip);
const isAssetName = isOneOf(DOCS_ASSET_NAMES);

interface LoadedAsset {
  readonly contentType: string;
  readonly identity: Buffer;
  readonly gzip?: Buffer;
  readonly etag: string;
}

/**
 * The package's files, found as Node finds the package: in node_modules locally, and in the
 * copy the CDK bundling puts beside the deployed bundle (the route's `bundledFiles`).
 */
async function readAsset(name: DocsAssetName): Promise<{ body: Buffer; contentType: string }> {
  if (name === INITIALIZER_ASSET) {
    return {
      body: Buffer.from(SWAGGER_INITIALIZER_JS),
      contentType: 'text/javascript; charset=utf-8',
    };
  }
  const { file, contentType } = SWAGGER_UI_ASSETS[name];
  const path = fileURLToPath(import.meta.resolve(`${SWAGGER_UI_PACKAGE}/${file}`));
  return { body: await readFile(path), contentType };
}

// Read and compressed once per container, on first request: the page's 1.7 MB script
// travels as about 0.5 MB.
const loaded = new Map<DocsAssetName, Promise<LoadedAsset>>();
const load = (name: DocsAssetName): Promise<LoadedAsset> => {
  let asset = loaded.get(name);
  if (asset === undefined) {
    asset = readAsset(name).then(async ({ body, contentType }) => {
      const compressed = await gzipped(body);
      return {
        contentType,
        identity: body,
        // An icon that gzip would only make larger goes as it is.
        ...(compressed.length < body.length ? { gzip: compressed } : {}),
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      };
    });
    // A failed read is retried by the next request, not remembered.
    asset.catch(() => loaded.delete(name));
    loaded.set(name, asset);
  }
  return asset;
};

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/**
 * GET /docs and GET /docs/{asset} (extension, no auth): the interactive reference, Swagger UI
 * as FastAPI serves it, from our own copy of the package.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .handler(async (event): Promise<ApiResult> => {
    if (event.routeKey === 'GET /docs') {
      return { statusCode: 200, headers: PAGE_HEADERS, body: DOCS_PAGE_HTML };
    }
    const name = event.pathParameters?.asset;
    if (name === undefined || !isAssetName(name)) throw new NotFoundError();
    const asset = await load(name);
    const compressed = acceptsGzip(event.headers['accept-encoding']) ? asset.gzip : undefined;
    // Each representation has its own tag (RFC 9110 §8.8.3): the gzip one is marked.
    const etag = compressed === undefined ? asset.etag : asset.etag.replace(/"$/, '-gzip"');
    const headers = {
      etag,
      // Kept, but revalidated on every load, so a deploy's page never runs an older script.
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    };
    if (matchesEtag(event.headers['if-none-match'], etag)) {
      return { statusCode: 304, headers, body: '' };
    }
    return {
      statusCode: 200,
      headers: {
        ...headers,
        'content-type': asset.contentType,
        ...(compressed === undefined ? {} : { 'content-encoding': 'gzip' }),
      },
      body: (compressed ?? asset.identity).toString('base64'),
      isBase64Encoded: true,
    };
  });
