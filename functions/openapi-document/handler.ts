import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { RequestSettings } from '#shared/config/environment.ts';
import { API_ROUTES } from '../service-functions.ts';
import { openApiDocumentFunction } from './function.ts';

/**
 * GET /openapi.json (extension, no auth): the OpenAPI 3.1 document, as FastAPI serves it, with
 * the stage's values of the settings that judge requests (a name's bound, …).
 */
export const createHandler = (_adapters: unknown, settings: RequestSettings) => {
  // Built once per container: the document is the same for every request until a deploy.
  const document = JSON.stringify(buildOpenApiDocument(API_ROUTES, settings));
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .handler(() => ({
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
      body: document,
    }));
};

export const handler = lambdaEntry(openApiDocumentFunction.variables, (env) =>
  createHandler({}, env),
);
