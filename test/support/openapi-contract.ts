import { gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** The parts of an OpenAPI 3.1 document the contract check reads. */
interface HeaderObject {
  readonly required?: boolean;
  readonly schema?: unknown;
}
interface ResponseObject {
  readonly $ref?: string;
  readonly content?: Readonly<Record<string, { readonly schema?: unknown }>>;
  readonly headers?: Readonly<Record<string, HeaderObject>>;
}
interface OperationObject {
  readonly responses?: Readonly<Record<string, ResponseObject>>;
}
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>;
  readonly components?: { readonly responses?: Readonly<Record<string, ResponseObject>> };
}

export interface ObservedResponse {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

const pointer = (...segments: string[]): string =>
  `/${segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

interface Template {
  readonly template: string;
  readonly pattern: RegExp;
  /** API Gateway prefers the route with fewer path parameters. */
  readonly parameters: number;
}

function compile(template: string): Template {
  const parts = template.split(/(\{[^}]+\})/);
  return {
    template,
    pattern: new RegExp(
      `^${parts
        .map((part) =>
          /^\{[^}]+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('')}$`,
    ),
    parameters: parts.filter((part) => /^\{[^}]+\}$/.test(part)).length,
  };
}

/**
 * Holds responses against an OpenAPI document: the status must be documented for the
 * route; for a request no route matches, it must be the fallback's (405 when the path exists
 * under another method, else 404, or 307 for a trailing slash). The media type must be one
 * the document lists, a JSON body must validate against its schema, required headers must be
 * there, and every documented header present must match its schema. Returns what is wrong.
 */
export function openApiContract(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (at: string): ValidateFunction => {
    let validate = validators.get(at);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `openapi#${at}` });
      validators.set(at, validate);
    }
    return validate;
  };
  const templates = Object.keys(document.paths)
    .map(compile)
    .sort((a, b) => a.parameters - b.parameters);

  const component = (name: string) => {
    const response = document.components?.responses?.[name];
    return response === undefined
      ? undefined
      : { response, at: pointer('components', 'responses', name) };
  };

  /** The documented response for this answer, and the JSON pointer under which it sits. */
  function documented(method: string, path: string, status: number) {
    const lower = method.toLowerCase();
    const matching = templates.filter(({ pattern }) => pattern.test(path));
    const template = matching.find((t) => document.paths[t.template]?.[lower] !== undefined);
    if (template === undefined) {
      const route = `${method} ${path} (no route)`;
      // A CORS preflight: `$default` answers it empty, and API Gateway adds the headers.
      if (method === 'OPTIONS' && status === 204) return { route, response: {}, at: '' };
      const expected =
        matching.length > 0 ? [405] : path.length > 1 && path.endsWith('/') ? [307, 404] : [404];
      if (!expected.includes(status)) return { route };
      const found = component(
        { 405: 'MethodNotAllowed', 307: 'TrailingSlashRedirect' }[status] ?? 'NotFound',
      );
      return { route, ...found };
    }
    const route = `${method} ${template.template}`;
    const response = document.paths[template.template]?.[lower]?.responses?.[String(status)];
    if (response === undefined) return { route };
    if (response.$ref !== undefined) {
      return { route, ...component(response.$ref.replace('#/components/responses/', '')) };
    }
    return {
      route,
      response,
      at: pointer('paths', template.template, lower, 'responses', String(status)),
    };
  }

  return {
    check(observed: ObservedResponse): string[] {
      const { route, response, at } = documented(observed.method, observed.path, observed.status);
      if (response === undefined || at === undefined) {
        return [`${route}: status ${String(observed.status)} is not in the document`];
      }
      const problems: string[] = [];
      const where = `${route} → ${String(observed.status)}`;
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const value = observed.headers[name];
        if (value === undefined) {
          if (header.required === true) problems.push(`${where}: header ${name} is missing`);
          continue;
        }
        if (header.schema === undefined) continue;
        const validate = validatorAt(`${at}${pointer('headers', name, 'schema')}`);
        const shown = value; // ajv's guard narrows what it checks
        if (!validate(value)) {
          problems.push(
            `${where}: header ${name}: ${ajv.errorsText(validate.errors)} ("${shown}")`,
          );
        }
      }
      if (response.content === undefined) {
        if (observed.body.length > 0) problems.push(`${where}: a body where none is documented`);
        return problems;
      }
      const mediaType = observed.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
      if (response.content[mediaType] === undefined) {
        problems.push(
          `${where}: media type "${mediaType}" is not documented (${Object.keys(response.content).join(', ')})`,
        );
        return problems;
      }
      if (mediaType !== 'application/json') return problems;
      let body: unknown;
      try {
        // HTTP's content coding, which a client undoes before it reads the body.
        const bytes =
          observed.headers['content-encoding'] === 'gzip'
            ? gunzipSync(observed.body)
            : observed.body;
        body = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        return [...problems, `${where}: the body is not JSON`];
      }
      const validate = validatorAt(`${at}${pointer('content', mediaType, 'schema')}`);
      if (!validate(body)) {
        problems.push(
          `${where}: the body does not match the schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
        );
      }
      return problems;
    },
  };
}
