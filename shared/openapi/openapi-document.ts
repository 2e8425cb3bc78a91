import * as z from 'zod';
import {
  createDocument,
  type ZodOpenApiObject,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { API_TAGS, type ApiOperation, type ResponseDoc } from '../api/operation.ts';
import type { ApiRoute, DocumentedRoute } from '../api/routes.ts';
import { bodyTooLargeMessage, jsonBodyLimit } from '../http/json-body-limit.ts';
import {
  ErrorFromEitherSchema,
  GatewayMessageSchema,
  HttpErrorSchema,
} from '../http/error-bodies.ts';
import { requestSchemasFor } from '../http/setting-bound-fields.ts';
import type { RequestSettings } from '../config/environment.ts';

/** FastAPI's name for its bearer scheme, which generated clients may already use. */
const BEARER_SCHEME = 'HTTPBearer';

/** The vendor extension that marks a route the contract does not show. */
const EXTENSION_MARK = 'x-extension';

const DESCRIPTION = `Files in your own area, submission notifications, deal files and
realtime-collaboration tokens.

**Auth.** Every route but the documentation and the realtime JWKS needs
\`Authorization: Bearer <token>\`: press **Authorize** and paste a token. On the local stage,
\`npm run --silent token -- --user 42\` prints one.

**Extensions.** Routes tagged \`${EXTENSION_MARK}: true\` (and marked *Extension* below) are
ours; the contract the clients were written against does not show them.

**Errors.** FastAPI's bodies: \`{"detail": "…"}\`, and 422 with Pydantic v2's error list.
API Gateway's own refusals say \`{"message": "…"}\`. A request that matches no route gets
\`404 {"detail":"Not Found"}\`, a known path under another method \`405\`
(components \`NotFound\`, \`MethodNotAllowed\`), and a trailing slash a \`307\` to the path
without it (\`TrailingSlashRedirect\`).`;

/** Answers many routes share, registered once as components. */
const COMMON_ANSWERS = {
  unauthorized: {
    id: 'Unauthorized',
    description:
      'No valid bearer token: absent, malformed, expired, not yet valid, wrongly signed, or ' +
      'for another issuer or audience (API Gateway’s JWT authorizer)',
    headers: z.object({
      'www-authenticate': z
        .string()
        .meta({ examples: ['Bearer scope="" error="invalid_token" error_description="…"'] }),
    }),
    content: {
      'application/json': {
        schema: GatewayMessageSchema,
        example: { message: 'Unauthorized' },
      },
    },
  },
  unreadableJson: {
    id: 'UnreadableJson',
    description:
      'The JSON body is in no encoding Python’s json reads (UTF-8, -16, -32), or nested too deep',
    content: {
      'application/json': {
        schema: HttpErrorSchema,
        example: { detail: 'There was an error parsing the body' },
      },
    },
  },
  payloadTooLarge: {
    id: 'PayloadTooLarge',
    description: 'The body is over API Gateway’s 10 MB payload limit',
    content: {
      'application/json': {
        schema: GatewayMessageSchema,
        example: { message: 'Request Entity Too Large' },
      },
    },
  },
  tooManyRequests: {
    id: 'TooManyRequests',
    description: 'Over the stage’s request rate (API Gateway throttling); retry with backoff',
    content: {
      'application/json': {
        schema: GatewayMessageSchema,
        example: { message: 'Too Many Requests' },
      },
    },
  },
  internalError: {
    id: 'InternalServerError',
    description:
      'Our fault, or the function ran past its timeout; nothing of it is shown (the logs have it under the request id)',
    content: {
      'application/json': {
        schema: ErrorFromEitherSchema,
        example: { detail: 'Internal Server Error' },
      },
    },
  },
  unavailable: {
    id: 'ServiceUnavailable',
    description:
      "A dependency throttled us (`Retry-After: 1`), or no answer came within API Gateway's 30 s",
    headers: z.object({
      'retry-after': z
        .string()
        .optional()
        .meta({ examples: ['1'] }),
    }),
    content: {
      'application/json': {
        schema: ErrorFromEitherSchema,
        example: { detail: 'Service Unavailable' },
      },
    },
  },
} satisfies Record<string, ZodOpenApiResponseObject>;

/** What a request that matches no route gets (API Gateway's `$default` route). */
const UNMATCHED = {
  NotFound: {
    description: 'No route has this path',
    content: {
      'application/json': { schema: HttpErrorSchema, example: { detail: 'Not Found' } },
    },
  },
  MethodNotAllowed: {
    description: 'The path exists under another method, which `Allow` names',
    headers: z.object({ allow: z.string().meta({ examples: ['GET'] }) }),
    content: {
      'application/json': {
        schema: HttpErrorSchema,
        example: { detail: 'Method Not Allowed' },
      },
    },
  },
  TrailingSlashRedirect: {
    description:
      'The path has a trailing slash; `Location` is the path without it (and the query), relative',
    headers: z.object({ location: z.string() }),
  },
} satisfies Record<string, ZodOpenApiResponseObject>;

function toResponseObject(answer: ResponseDoc): ZodOpenApiResponseObject {
  return {
    description: answer.description,
    ...(answer.headers === undefined ? {} : { headers: answer.headers }),
    ...(answer.content === undefined
      ? {}
      : {
          content: Object.fromEntries(
            answer.content.map((body) => [
              body.mediaType,
              { schema: body.schema, example: body.example },
            ]),
          ),
        }),
  };
}

/** A JSON route's 413: ours for a body larger than any valid request, or API Gateway's. */
function jsonBodyTooLarge(body: z.ZodType): ZodOpenApiResponseObject {
  const limit = jsonBodyLimit(body);
  return {
    description:
      `The body is over ${String(limit)} bytes, more than any valid request of this route ` +
      '(refused before it is read), or over API Gateway’s 10 MB (`{"message": …}`)',
    content: {
      'application/json': {
        schema: ErrorFromEitherSchema,
        example: { detail: bodyTooLargeMessage(limit) },
      },
    },
  };
}

function responsesOf(route: ApiRoute, operation: ApiOperation): ZodOpenApiResponsesObject {
  const { request } = operation;
  const hasBody = request.body !== undefined || request.form !== undefined;
  const own = new Map(
    Object.entries(operation.responses).map(([status, answer]) => [
      Number(status),
      toResponseObject(answer),
    ]),
  );
  const shared = new Map<number, ZodOpenApiResponseObject>([
    ...(request.body === undefined ? [] : [[400, COMMON_ANSWERS.unreadableJson] as const]),
    ...(route.auth === 'jwt' ? [[401, COMMON_ANSWERS.unauthorized] as const] : []),
    ...(request.body !== undefined
      ? [[413, jsonBodyTooLarge(request.body)] as const]
      : hasBody
        ? [[413, COMMON_ANSWERS.payloadTooLarge] as const]
        : []),
    [429, COMMON_ANSWERS.tooManyRequests],
    [500, COMMON_ANSWERS.internalError],
    [503, COMMON_ANSWERS.unavailable],
  ]);
  const statuses = [...new Set([...own.keys(), ...shared.keys()])].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => [String(status), own.get(status) ?? shared.get(status)]),
  ) as ZodOpenApiResponsesObject;
}

function toOperationObject(route: ApiRoute, operation: ApiOperation): ZodOpenApiOperationObject {
  const { request } = operation;
  const extension = operation.origin === 'extension';
  const path = request.path ?? operation.handlerCheckedPath;
  const requestParams = {
    ...(path === undefined ? {} : { path: path as z.ZodObject }),
    ...(request.query === undefined ? {} : { query: request.query as z.ZodObject }),
    ...(request.header === undefined ? {} : { header: request.header as z.ZodObject }),
  };
  const body =
    request.body === undefined
      ? undefined
      : {
          'application/json': {
            schema: request.body,
            ...(operation.requestExample === undefined
              ? {}
              : { example: operation.requestExample }),
          },
        };
  const form =
    request.form === undefined ? undefined : { 'multipart/form-data': { schema: request.form } };
  const content = body ?? form;
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: extension
      ? `**Extension**: not in the contract. ${operation.description}`
      : operation.description,
    tags: [operation.tag],
    // Only extensions carry the mark: Swagger UI shows `x-extension: false` as `null`.
    ...(extension ? { [EXTENSION_MARK]: true } : {}),
    security: route.auth === 'jwt' ? [{ [BEARER_SCHEME]: [] }] : [],
    ...(Object.keys(requestParams).length === 0 ? {} : { requestParams }),
    ...(content === undefined ? {} : { requestBody: { required: true, content } }),
    responses: responsesOf(route, operation),
  };
}

/**
 * The service's OpenAPI 3.1 document, generated from the routes (their functions' declarations,
 * in their order) and the zod schemas the handlers validate with, each request as the stage's
 * `settings` bound it. GET /openapi.json serves it; the contract check holds every e2e
 * response against it.
 */
export function buildOpenApiDocument(
  routes: readonly DocumentedRoute[],
  settings: RequestSettings,
): ReturnType<typeof createDocument> {
  const judged = requestSchemasFor(settings);
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const operation = { ...route.operation, request: judged(route.operation.request) };
    paths[route.path] = {
      ...paths[route.path],
      [route.method.toLowerCase()]: toOperationObject(route, operation),
    };
  }
  const document: ZodOpenApiObject = {
    openapi: '3.1.0',
    info: {
      title: 'File and collaboration-token service',
      version: '1.0.0',
      description: DESCRIPTION,
    },
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token from the identity provider the stage trusts',
        },
      },
      responses: UNMATCHED,
    },
  };
  return createDocument(document, {
    allowEmptySchema: { custom: true },
    // zod writes the safe-integer range on every int; FastAPI's documents say `integer`.
    override: ({ jsonSchema }) => {
      if (
        jsonSchema.minimum === Number.MIN_SAFE_INTEGER &&
        jsonSchema.maximum === Number.MAX_SAFE_INTEGER
      ) {
        delete jsonSchema.minimum;
        delete jsonSchema.maximum;
      }
    },
  });
}
