import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';

/** What API Gateway's HTTP API (payload 2.0, JWT authorizer) hands every route's function. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;

/** The raw request body as bytes, whatever API Gateway's encoding. */
export function bodyBytes(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): Buffer {
  if (event.body === undefined || event.body === '') return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
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
