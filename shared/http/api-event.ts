import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';

/** What API Gateway's HTTP API (payload 2.0, JWT authorizer) hands every route's function. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;

/** The raw request body as bytes, whatever API Gateway's encoding. */
export function bodyBytes(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): Buffer {
  if (event.body === undefined || event.body === '') return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

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

/** The raw body's length in bytes, without decoding it: a body to refuse is never copied. */
export function bodyByteLength(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): number {
  const body = event.body ?? '';
  if (!event.isBase64Encoded) return Buffer.byteLength(body);
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.floor((body.length * 3) / 4) - padding;
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
