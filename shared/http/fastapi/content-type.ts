/**
 * FastAPI parity: which Content-Type a request has, and its media type, as the reference reads
 * them. Starlette 1.7.0 reads the first of repeated headers (`starlette/datastructures.py`,
 * `Headers.__getitem__`); FastAPI 0.142.2 takes the media type with CPython's
 * `email.message.Message` (`fastapi/routing.py`, `get_request_handler`; CPython 3.11.7
 * `Lib/email/message.py`, `get_content_type`).
 * Reference: FastAPI 0.142.2, Starlette 1.7.0, CPython 3.11.7 (docs/fastapi-parity.md).
 */

import type { ApiEvent } from '../api-event.ts';

/**
 * The request's Content-Type as Starlette reads it: the first header's value. API Gateway
 * joins a repeated header with commas, so that value ends at the first comma outside a
 * quoted string (RFC 9110 §5.6.4: inside one, a backslash escapes the next character), and
 * `boundary="a,b"` keeps its comma. A Content-Type is one value, with no bare comma in it
 * (RFC 9110 §8.3), so a comma outside quotes can only be where a second header begins.
 */
export function contentTypeOf(event: Pick<ApiEvent, 'headers'>): string | undefined {
  const joined = event.headers['content-type'];
  if (joined === undefined) return undefined;
  let quoted = false;
  for (let i = 0; i < joined.length; i++) {
    const c = joined[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) return joined.slice(0, i);
  }
  return joined;
}

/**
 * The media type of a Content-Type header, lower-cased, without parameters, read as Python's
 * `email.message` reads it (FastAPI's way): anything but one `type/subtype` is `text/plain`.
 * An empty header counts as none.
 */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined || contentType.trim() === '') return undefined;
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type.split('/').length === 2 ? type : 'text/plain';
}
