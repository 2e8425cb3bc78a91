import type { MiddlewareObj } from '@middy/core';
import type { z } from 'zod';
import type { ApiEvent } from './api-event.ts';
import { RequestValidationError } from './http-errors.ts';
import { readJsonBody } from './json-body.ts';
import {
  missingField,
  type PydanticError,
  type RequestSource,
  toPydanticErrors,
} from './pydantic-errors.ts';
import type { ApiResult } from './responses.ts';

export interface RequestSchemas {
  readonly path?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
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
 * Validates path, query and JSON body against zod schemas and reports every failure at once,
 * in FastAPI's order (path, query, body), as its 422 body. A body that is not JSON fails
 * before anything else, as it does in FastAPI.
 */
export function validateRequest<const S extends RequestSchemas>(
  schemas: S,
): MiddlewareObj<ApiEvent & { input: ValidatedInput<S> }, ApiResult> {
  return {
    name: 'validateRequest',
    before: (request) => {
      const { event } = request;
      const body = schemas.body === undefined ? undefined : readJsonBody(event);
      const errors: PydanticError[] = [];
      const input: Record<string, unknown> = {};
      if (schemas.path !== undefined) {
        input.path = check(schemas.path, 'path', event.pathParameters ?? {}, errors);
      }
      if (schemas.query !== undefined) {
        input.query = check(schemas.query, 'query', event.queryStringParameters ?? {}, errors);
      }
      if (schemas.body !== undefined && body !== undefined) {
        if (body.kind === 'absent') errors.push(missingField(['body']));
        else input.body = check(schemas.body, 'body', body.value, errors);
      }
      if (errors.length > 0) throw new RequestValidationError(errors);
      event.input = input as ValidatedInput<S>;
    },
  };
}
