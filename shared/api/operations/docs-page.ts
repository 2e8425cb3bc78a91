import * as z from 'zod';
import { defineOperation } from '../operation.ts';

export const docsPageOperation = defineOperation({
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
          example: '<!doctype html><html lang="en">…</html>',
        },
      ],
    },
  },
});
