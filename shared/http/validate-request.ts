import type { MiddlewareObj } from '@middy/core';
import type { z } from 'zod';
import { type ApiEvent, bodyByteLength } from './api-event.ts';
import { NotFoundError, PayloadTooLargeError, RequestValidationError } from './http-errors.ts';
import { bodyTooLargeMessage, jsonBodyLimit } from './json-body-limit.ts';
import { readJsonBody } from './fastapi/json-body.ts';
import { FilePart, type FormValue } from './fastapi/file-part.ts';
import { isRawNumber, pythonEcho } from './fastapi/python-number.ts';
import {
  missingField,
  notAnObject,
  type PydanticError,
  type RequestSource,
  toPydanticErrors,
} from './fastapi/pydantic-errors.ts';
import type { ApiResult } from './responses.ts';
import { requestSchemasFor } from './setting-bound-fields.ts';
import type { HandlerSettings } from '../config/environment.ts';

/**
 * Reads a form body into its fields. Passed in by the one handler that takes a form, so the
 * multipart reader ships in that bundle alone.
 */
export type FormReader = (
  event: Pick<ApiEvent, 'body' | 'isBase64Encoded' | 'headers'>,
) => Record<string, FormValue>;

export interface RequestSchemas {
  readonly path?: z.ZodType;
  readonly query?: z.ZodType;
  /** Headers, by lower-case name, as API Gateway's payload 2.0 delivers them. */
  readonly header?: z.ZodType;
  readonly body?: z.ZodType;
  /** A multipart or urlencoded form body, validated as FastAPI validates `Form`/`File`. */
  readonly form?: z.ZodType;
}

/** The validated request, typed from the very schemas that checked it. */
export type ValidatedInput<S extends RequestSchemas> = {
  readonly [K in keyof S]: S[K] extends z.ZodType ? z.output<S[K]> : never;
};

function check(
  schema: z.ZodType,
  source: RequestSource,
  raw: unknown,
  errors: PydanticError[],
): unknown {
  const result = schema.safeParse(raw, { reportInput: true });
  if (result.success) return result.data;
  errors.push(...toPydanticErrors(result.error.issues, source, raw));
  return undefined;
}

/**
 * The query as FastAPI reads a scalar parameter: the last of repeated values. API Gateway
 * joins them with commas in `queryStringParameters`, so the raw query string is read instead.
 */
function queryOf(event: Pick<ApiEvent, 'rawQueryString' | 'queryStringParameters'>) {
  return event.rawQueryString === ''
    ? (event.queryStringParameters ?? {})
    : Object.fromEntries(new URLSearchParams(event.rawQueryString));
}

/**
 * FastAPI's form rules: an empty field counts as absent, and so every missing part is
 * reported with `input: null`, whatever else the form held.
 */
function checkForm(schema: z.ZodType, form: Record<string, unknown>, errors: PydanticError[]) {
  const present = Object.fromEntries(Object.entries(form).filter(([, value]) => value !== ''));
  const found: PydanticError[] = [];
  const value = check(schema, 'body', present, found);
  for (const error of found) {
    if (error.type === 'missing') errors.push({ ...error, input: null });
    else if (error.input instanceof FilePart) {
      // Pydantic echoes bytes as text; a whole file is no use in an error, so only an
      // empty one is echoed.
      errors.push({ ...error, input: error.input.size === 0 ? '' : null });
    } else errors.push(error);
  }
  return value;
}

/**
 * Validates path, query and body (JSON or form) against zod schemas and reports every
 * failure at once, in FastAPI's order (path, query, header, body), as its 422 body. A body that
 * cannot be parsed at all fails before anything else, as it does in FastAPI. A field that a
 * stage setting bounds (shared/http/setting-bound-fields.ts) takes its value from `settings`,
 * the handler's own: its function reads every setting that judges its request.
 */
export function validateRequest<const S extends RequestSchemas>(
  request: S,
  settings: Readonly<Partial<HandlerSettings>>,
  options: { readonly readForm?: FormReader } = {},
): MiddlewareObj<ApiEvent & { input: ValidatedInput<S> }, ApiResult> {
  const { readForm } = options;
  if ((request.form === undefined) !== (readForm === undefined)) {
    throw new Error('A form schema and a form reader go together');
  }
  // Once per container: the request as this stage's settings bound it.
  const schemas: RequestSchemas = requestSchemasFor(settings)(request);
  // Once per container: the largest body a valid request of this route can have.
  const bodyLimit = schemas.body === undefined ? undefined : jsonBodyLimit(schemas.body);
  return {
    name: 'validateRequest',
    before: (request) => {
      const { event } = request;
      // Starlette routes the decoded path: `1%2F2` is two segments there, and no route has
      // them, whatever the path's other segments are.
      if (Object.values(event.pathParameters ?? {}).some((value) => value?.includes('/'))) {
        throw new NotFoundError();
      }
      // Refused before it is decoded: no body costs more to read than a valid one could.
      if (bodyLimit !== undefined && bodyByteLength(event) > bodyLimit) {
        throw new PayloadTooLargeError(bodyTooLargeMessage(bodyLimit));
      }
      const body = schemas.body === undefined ? undefined : readJsonBody(event);
      const form = readForm?.(event);
      const errors: PydanticError[] = [];
      const input: Record<string, unknown> = {};
      if (schemas.path !== undefined) {
        input.path = check(schemas.path, 'path', event.pathParameters ?? {}, errors);
      }
      if (schemas.query !== undefined) {
        input.query = check(schemas.query, 'query', queryOf(event), errors);
      }
      if (schemas.header !== undefined) {
        input.header = check(schemas.header, 'header', event.headers, errors);
      }
      if (schemas.body !== undefined && body !== undefined) {
        if (body.kind === 'absent') errors.push(missingField(['body']));
        else if (isRawNumber(body.value)) errors.push(notAnObject(body.value));
        else input.body = check(schemas.body, 'body', body.value, errors);
      }
      if (schemas.form !== undefined && form !== undefined) {
        input.form = checkForm(schemas.form, form, errors);
      }
      // Python's text of an echoed number is made here, for the echo alone.
      if (errors.length > 0) {
        throw new RequestValidationError(
          errors.map((error) => ({ ...error, input: pythonEcho(error.input) })),
        );
      }
      event.input = input as ValidatedInput<S>;
    },
  };
}
