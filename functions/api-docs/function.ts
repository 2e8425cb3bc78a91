import * as z from 'zod';
import { defineOperation, detailAnswer, emptyAnswer } from '#shared/api/operation.ts';
import { DOCS_ASSET_NAMES, SWAGGER_UI_FILES } from '#shared/docs/swagger-ui-assets.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';

const docsPageOperation = defineOperation({
  operationId: 'docsPage',
  summary: 'This reference',
  description: 'Swagger UI, served from our own copy of `swagger-ui-dist` (no CDN).',
  tag: 'Documentation',
  origin: 'extension',
  request: {},
  responses: {
    200: {
      description: 'The page',
      content: [
        {
          mediaType: 'text/html',
          schema: z.string(),
          example: '<!doctype html>\n<html lang="en">…</html>\n',
        },
      ],
    },
  },
});

const revalidated = z.object({
  etag: z.string(),
  'cache-control': z.literal('no-cache'),
});

const docsAssetOperation = defineOperation({
  operationId: 'docsAsset',
  summary: 'A script, style or icon of the reference page',
  description:
    'Gzipped when the client accepts it and it is smaller. Cached but revalidated on every ' +
    'load (`Cache-Control: no-cache`) with `If-None-Match`.',
  tag: 'Documentation',
  origin: 'extension',
  request: {},
  // The names /docs loads; the handler answers any other with a 404, as a file server does.
  handlerCheckedPath: z.object({
    asset: z.enum(DOCS_ASSET_NAMES).meta({ param: { example: 'swagger-ui.css' } }),
  }),
  responses: {
    200: {
      description: 'The file',
      content: [
        {
          mediaType: 'text/javascript',
          schema: z.string(),
          example: '/*! For license information please see swagger-ui-bundle.js.LICENSE.txt */\n…',
        },
        { mediaType: 'text/css', schema: z.string(), example: '.swagger-ui{color:#3b4151;…' },
        // The icon's bytes: no text example can show them.
        {
          mediaType: 'image/png',
          schema: z.string().meta({ contentMediaType: 'image/png' }),
          example: undefined,
        },
      ],
      headers: revalidated,
    },
    304: emptyAnswer('Unchanged since the `If-None-Match` ETag', revalidated),
    404: detailAnswer('No such file', 'Not Found'),
  },
});

export const apiDocsFunction = defineFunction({
  id: 'ApiDocs',
  entry: 'functions/api-docs/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/docs',
      routeName: 'Page',
      auth: 'none',
      publicBecause: 'the interactive reference page (FastAPI serves it without auth); no data',
      operation: docsPageOperation,
    },
    {
      method: 'GET',
      path: '/docs/{asset}',
      routeName: 'Asset',
      auth: 'none',
      publicBecause: "the reference page's scripts and styles; no data",
      operation: docsAssetOperation,
    },
  ],
  // Swagger UI, read from the bundle as from node_modules locally.
  bundledFiles: SWAGGER_UI_FILES,
  // Gzips the 1.7 MB Swagger UI script once per container: CPU, hence the memory.
  sizing: { memoryMb: 1024, timeoutSeconds: 10 },
});
