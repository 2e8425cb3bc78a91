import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { API_ROUTES } from '../service-functions.ts';

// Built once per cold start: the document is the same for every request until a deploy.
const document = JSON.stringify(buildOpenApiDocument(API_ROUTES));

/** GET /openapi.json (extension, no auth): the OpenAPI 3.1 document, as FastAPI serves it. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .handler(() => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
    body: document,
  }));
