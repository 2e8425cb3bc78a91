import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { API_OPERATIONS, API_ROUTES, type RouteKey } from '#functions/service-functions.ts';
import { routeKey } from '#shared/api/routes.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { requestSettingDefaults } from '#shared/config/environment.ts';

const document = buildOpenApiDocument(API_ROUTES, requestSettingDefaults());

interface MediaType {
  readonly schema?: unknown;
  readonly example?: unknown;
}
interface Operation {
  readonly operationId: string;
  readonly 'x-extension'?: true;
  readonly security: Record<string, string[]>[];
  readonly parameters?: { in: string; name: string; required?: boolean; example?: unknown }[];
  readonly requestBody?: { content: Record<string, MediaType> };
  readonly responses: Record<
    string,
    {
      $ref?: string;
      content?: Record<string, MediaType>;
      headers?: Record<string, { schema?: { examples?: unknown[] } }>;
    }
  >;
}

const json = JSON.parse(JSON.stringify(document)) as {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
    responses: Record<string, { content?: Record<string, MediaType> }>;
  };
};
const operations = Object.entries(json.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    key: `${method.toUpperCase()} ${path}`,
    operation,
  })),
);
const operationOf = (key: string): Operation => {
  const found = operations.find((o) => o.key === key)?.operation;
  if (found === undefined) throw new Error(`${key} is not in the document`);
  return found;
};

/** The routes the contract shows; every other route is ours. */
const CONTRACT_ROUTES = [
  'GET /api/v1/user/me/file',
  'POST /api/v1/user/me/file',
  'POST /api/v1/user/me/file/notify',
  'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
  'POST /api/v1/auth/get-realtime-token',
];

/** Every example an operation carries: bodies, parameters, success headers. */
function examplesIn(operation: Operation): unknown[] {
  const found: unknown[] = [];
  for (const parameter of operation.parameters ?? []) {
    if ('example' in parameter) found.push(parameter.example);
  }
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    if (media.example !== undefined) found.push(media.example);
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!/^[23]/.test(status)) continue;
    for (const media of Object.values(response.content ?? {})) {
      if (media.example !== undefined) found.push(media.example);
    }
    for (const header of Object.values(response.headers ?? {})) {
      found.push(...(header.schema?.examples ?? []));
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(json);
    expect(result).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
    expect(json).toMatchObject({ openapi: '3.1.0' });
  });

  it('describes every route, under its method, and nothing else', () => {
    expect(operations.map((o) => o.key).sort()).toEqual(API_ROUTES.map(routeKey).sort());
    const ids = operations.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('marks the routes the contract does not show as extensions, and only those', () => {
    const marked = operations.filter((o) => 'x-extension' in o.operation);
    expect(marked.map((o) => o.key).sort()).toEqual(
      API_ROUTES.map(routeKey)
        .filter((key) => !CONTRACT_ROUTES.includes(key))
        .sort(),
    );
    for (const { operation } of marked) expect(operation['x-extension']).toBe(true);
    for (const { operation } of operations) {
      expect(JSON.stringify(operation).includes('**Extension**: not in the contract.')).toBe(
        operation['x-extension'] === true,
      );
    }
  });

  it('names the bearer scheme, required exactly on the routes behind the authorizer', () => {
    expect(json.components.securitySchemes).toEqual({
      HTTPBearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'An access token from the identity provider the stage trusts',
      },
    });
    for (const route of API_ROUTES) {
      const operation = operationOf(routeKey(route));
      expect(operation.security).toEqual(route.auth === 'jwt' ? [{ HTTPBearer: [] }] : []);
      expect(operation.responses['401']).toEqual(
        route.auth === 'jwt' ? { $ref: '#/components/responses/Unauthorized' } : undefined,
      );
    }
  });

  it("has FastAPI's ValidationError, with input and ctx, as the 422 of every route that can fail validation", () => {
    expect(json.components.schemas.ValidationError).toEqual({
      type: 'object',
      title: 'ValidationError',
      properties: {
        loc: {
          type: 'array',
          items: { type: ['string', 'integer'] },
          description: expect.any(String) as unknown,
        },
        msg: { type: 'string', description: expect.any(String) as unknown },
        type: { type: 'string', description: expect.any(String) as unknown },
        input: { description: 'The value that failed' },
        ctx: {
          type: 'object',
          propertyNames: { type: 'string' },
          additionalProperties: {},
          description: expect.any(String) as unknown,
        },
      },
      required: ['loc', 'msg', 'type'],
      additionalProperties: false,
    });
    expect(json.components.schemas.HTTPValidationError).toMatchObject({
      properties: {
        detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } },
      },
    });
    // A route that validates anything but free-text path parameters (the notification id: an
    // unknown one is a 404) can answer 422.
    const validating = operations.filter(({ key }) => {
      const { request } = API_OPERATIONS[key as RouteKey];
      return (
        Object.keys(request).length > 0 &&
        key !== 'GET /api/v1/user/me/file/notify/{notification_id}'
      );
    });
    expect(validating.length).toBeGreaterThan(0);
    // Each its own, with an example of what that route answers (test/e2e/openapi-examples.test.ts).
    for (const { key, operation } of operations) {
      expect(operation.responses['422'], key).toEqual(
        validating.some((o) => o.key === key)
          ? {
              description: 'Validation Error: every failing field, as Pydantic v2 reports it',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/HTTPValidationError' },
                  example: {
                    detail: [expect.objectContaining({ loc: expect.any(Array) as unknown })],
                  },
                },
              },
            }
          : undefined,
      );
    }
  });

  it('gives every operation an example of its success, and every example fits its schema', () => {
    // Its success is this document: an example could only be a part of it.
    const selfDescribed = 'get /openapi.json';
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(json, 'openapi');
    const check = (pointer: string, media: MediaType, where: string) => {
      if (media.schema === undefined || media.example === undefined) return;
      const validate = ajv.compile({ $ref: `openapi#${pointer}/schema` });
      expect(validate(media.example), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    };
    const escape = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
    for (const [path, item] of Object.entries(json.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const at = `/paths/${escape(path)}/${method}`;
        if (`${method} ${path}` !== selfDescribed) {
          expect(examplesIn(operation), `${method} ${path}`).not.toEqual([]);
        }
        for (const [code, answer] of Object.entries(operation.responses)) {
          for (const [type, media] of Object.entries(answer.content ?? {})) {
            if (type !== 'application/json') continue;
            check(
              `${at}/responses/${code}/content/${escape(type)}`,
              media,
              `${method} ${path} ${code}`,
            );
          }
        }
        const body = operation.requestBody?.content['application/json'];
        if (body !== undefined) {
          expect(body.example, `${method} ${path} request`).toBeDefined();
          check(`${at}/requestBody/content/application~1json`, body, `${method} ${path} request`);
        }
      }
    }
    for (const [name, response] of Object.entries(json.components.responses)) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        check(`/components/responses/${name}/content/${escape(type)}`, media, name);
      }
    }
  });

  it("offers request examples the handler's own schema accepts", () => {
    for (const [key, operation] of Object.entries(API_OPERATIONS)) {
      const { body } = operation.request;
      if (body === undefined) continue;
      expect(body.safeParse(operation.requestExample).success, key).toBe(true);
    }
  });

  it("is what each handler validates with: its operation's very request schemas", async () => {
    for (const route of API_ROUTES) {
      const operation = API_OPERATIONS[routeKey(route) as RouteKey];
      const source = await readFile(route.entry, 'utf8');
      const used = /validateRequest\(\s*(\w+)/.exec(source)?.[1];
      if (Object.keys(operation.request).length === 0) {
        expect(used, route.entry).toBeUndefined();
        continue;
      }
      const from = new RegExp(
        `import \\{[^}]*\\b${used ?? '-'}\\b[^}]*\\} from '(#shared/[^']+)'`,
      ).exec(source)?.[1];
      expect(from, `${route.entry} validates with an imported request`).toBeDefined();
      const module = (await import(from ?? '')) as Record<string, unknown>;
      expect(module[used ?? ''], route.entry).toBe(operation.request);
    }
  });

  it('describes what a request that matches no route gets', () => {
    expect(Object.keys(json.components.responses)).toEqual(
      expect.arrayContaining(['NotFound', 'MethodNotAllowed', 'TrailingSlashRedirect']),
    );
  });
});
