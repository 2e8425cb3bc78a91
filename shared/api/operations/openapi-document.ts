import * as z from 'zod';
import { defineOperation, jsonAnswer } from '../operation.ts';

export const openApiDocumentOperation = defineOperation({
  operationId: 'openApiDocument',
  summary: 'This API as an OpenAPI 3.1 document',
  description:
    'Generated from the same zod schemas the functions validate with. Feed it to a client ' +
    'generator (see the README).',
  tag: 'Documentation',
  origin: 'extension',
  request: {},
  responses: {
    200: jsonAnswer(
      'The document',
      z.looseObject({ openapi: z.literal('3.1.0') }).meta({ id: 'OpenApiDocument' }),
      { openapi: '3.1.0' },
    ),
  },
});
