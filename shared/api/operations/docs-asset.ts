import * as z from 'zod';
import { DOCS_ASSET_NAMES } from '../../docs/swagger-ui-assets.ts';
import { defineOperation, detailAnswer, emptyAnswer } from '../operation.ts';

const revalidated = z.object({
  etag: z.string(),
  'cache-control': z.literal('no-cache'),
});

export const docsAssetOperation = defineOperation({
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
        { mediaType: 'text/javascript', schema: z.string(), example: '/*! Swagger UI */…' },
        { mediaType: 'text/css', schema: z.string(), example: '.swagger-ui{…}' },
        {
          mediaType: 'image/png',
          schema: z.string().meta({ contentMediaType: 'image/png' }),
          example: '',
        },
      ],
      headers: revalidated,
    },
    304: emptyAnswer('Unchanged since the `If-None-Match` ETag', revalidated),
    404: detailAnswer('No such file', 'Not Found'),
  },
});
