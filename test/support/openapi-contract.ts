import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** The parts of an OpenAPI 3.1 document the contract check reads. */
interface ResponseObject {
  readonly $ref?: string;
  readonly content?: Readonly<Record<string, { readonly schema?: unknown }>>;
  readonly headers?: Readonly<Record<string, { readonly required?: boolean }>>;
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
  readonly headers: Headers;
  readonly body: Uint8Array;
}

/** What a request that matches no route may get, by status (the fallback's answers). */
const UNMATCHED: Readonly<Record<number, string>> = {
  404: 'NotFound',
  405: 'MethodNotAllowed',
  307: 'TrailingSlashRedirect',
};

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

const pointer = (...segments: string[]): string =>
  segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Holds responses against an OpenAPI document: the status must be documented for the
 * route (or, for a request no route matches, be the fallback's), the media type must be one
 * the document lists, a JSON body must validate against its schema, and required headers
 * must be there. Returns what is wrong, or nothing.
 */
export function openApiContract(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (ref: string): ValidateFunction => {
    let validate = validators.get(ref);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `openapi#${ref}` });
      validators.set(ref, validate);
    }
    return validate;
  };
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${template
        .split(/(\{[^}]+\})/)
        .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : escapeRegExp(part)))
        .join('')}$`,
    ),
  }));

  /** The documented response, and the JSON pointer under which it sits. */
  function documented(
    method: string,
    path: string,
    status: number,
  ): { route: string; response?: ResponseObject; at?: string } {
    const lower = method.toLowerCase();
    const template = templates.find(
      ({ template: t, pattern }) => pattern.test(path) && document.paths[t]?.[lower] !== undefined,
    )?.template;
    if (template === undefined) {
      const name = UNMATCHED[status];
      const response = name === undefined ? undefined : document.components?.responses?.[name];
      return {
        route: `${method} ${path} (no route)`,
        ...(response === undefined || name === undefined
          ? {}
          : { response, at: `/${pointer('components', 'responses', name)}` }),
      };
    }
    const route = `${method} ${template}`;
    const response = document.paths[template]?.[lower]?.responses?.[String(status)];
    if (response === undefined) return { route };
    if (response.$ref === undefined) {
      return {
        route,
        response,
        at: `/${pointer('paths', template, lower, 'responses', String(status))}`,
      };
    }
    const name = response.$ref.replace('#/components/responses/', '');
    const target = document.components?.responses?.[name];
    return {
      route,
      ...(target === undefined ? {} : { response: target }),
      at: `/${pointer('components', 'responses', name)}`,
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
        if (header.required === true && !observed.headers.has(name)) {
          problems.push(`${where}: the documented header ${name} is missing`);
        }
      }
      const contentType = observed.headers.get('content-type');
      if (response.content === undefined) {
        if (observed.body.length > 0) problems.push(`${where}: a body where none is documented`);
        return problems;
      }
      const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
      if (response.content[mediaType] === undefined) {
        problems.push(
          `${where}: media type "${mediaType}" is not documented (${Object.keys(response.content).join(', ')})`,
        );
        return problems;
      }
      if (mediaType !== 'application/json') return problems;
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder().decode(observed.body));
      } catch {
        return [...problems, `${where}: the body is not JSON`];
      }
      const validate = validatorAt(`${at}/${pointer('content', mediaType, 'schema')}`);
      if (!validate(body)) {
        problems.push(
          `${where}: the body does not match the schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
        );
      }
      return problems;
    },
  };
}
