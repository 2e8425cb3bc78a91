/**
 * FastAPI parity: how FastAPI 0.142.2 reads a JSON body before validating it (`fastapi/routing.py`,
 * `get_request_handler`): an empty body is none, a JSON media type goes through Starlette's
 * `request.json()`, any other type (or none, FastAPI's strict content type) is handed on
 * unparsed, a decode error is a 422 `json_invalid` and any other failure a 400.
 * `@middy/http-json-body-parser` cannot take its place, even for the bodies that parse: ADR 0007.
 * Reference: FastAPI 0.142.2, Starlette 1.7.0, CPython 3.11.7 (docs/fastapi-parity.md).
 */

import { type ApiEvent, bodyBytes } from '../api-event.ts';
import { contentTypeOf, mediaType } from './content-type.ts';
import { BadRequestError, RequestValidationError } from '../http-errors.ts';
import { decodeJsonBytes } from './json-encoding.ts';
import { parsePythonJson } from './python-json.ts';

/** What FastAPI hands its body model: nothing, a parsed JSON value, or raw text. */
export type RawBody =
  { readonly kind: 'absent' } | { readonly kind: 'value'; readonly value: unknown };

const LENIENT_UTF8 = new TextDecoder('utf-8');

/** FastAPI's strict content type (its default since 0.132): no type is no JSON. */
function isJsonMediaType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const [main, sub = ''] = type.split('/');
  return main === 'application' && (sub === 'json' || sub.endsWith('+json'));
}

/**
 * Reads a JSON body the way FastAPI does: an empty body, or `null`, is absent (a `missing`
 * error at `["body"]`); a JSON content type is decoded with Python's rules; any other content
 * type, or none, is passed on as text, which then fails model validation; bytes in no
 * encoding Python's json reads are a 400.
 */
export function readJsonBody(event: ApiEvent): RawBody {
  const bytes = bodyBytes(event);
  if (bytes.length === 0) return { kind: 'absent' };
  if (!isJsonMediaType(mediaType(contentTypeOf(event)))) {
    return { kind: 'value', value: LENIENT_UTF8.decode(bytes) };
  }
  let result;
  try {
    result = parsePythonJson(decodeJsonBytes(bytes));
  } catch {
    // Bytes not in any encoding Python's json reads, or nesting deeper than the stack:
    // FastAPI answers both with this 400.
    throw new BadRequestError('There was an error parsing the body');
  }
  // FastAPI hands a JSON `null` body to validation as no body at all.
  if (result.ok)
    return result.value === null ? { kind: 'absent' } : { kind: 'value', value: result.value };
  throw new RequestValidationError([
    {
      type: 'json_invalid',
      loc: ['body', result.pos],
      msg: 'JSON decode error',
      input: {},
      ctx: { error: result.msg },
    },
  ]);
}
