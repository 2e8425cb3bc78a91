import * as z from 'zod';
import { defineOperation } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { REQUEST_SETTINGS } from '#shared/config/environment.ts';

const openApiDocumentOperation = defineOperation({
  operationId: 'openApiDocument',
  summary: 'This API as an OpenAPI 3.1 document',
  description:
    'Generated from the same zod schemas the functions validate with. Feed it to a client ' +
    'generator (see the README).',
  tag: 'Documentation',
  origin: 'extension',
  request: {},
  responses: {
    200: {
      description: 'The document',
      content: [
        {
          mediaType: 'application/json',
          schema: z.looseObject({ openapi: z.literal('3.1.0') }).meta({ id: 'OpenApiDocument' }),
          // The answer is this very document: any example of it could only be a part.
          example: undefined,
        },
      ],
    },
  },
});

export const openApiDocumentFunction = defineFunction({
  id: 'OpenApiDocument',
  entry: 'functions/openapi-document/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/openapi.json',
      auth: 'none',
      publicBecause: 'the API description (FastAPI serves it without auth); it holds no data',
      operation: openApiDocumentOperation,
    },
  ],
  // Builds the document once per cold start.
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  // The document states the bounds these set on request fields, with the stage's values.
  settings: REQUEST_SETTINGS,
});
