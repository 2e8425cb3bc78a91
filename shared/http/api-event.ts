import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';

/** What API Gateway's HTTP API (payload 2.0, JWT authorizer) hands every route's function. */
export type ApiEvent = APIGatewayProxyEventV2WithJWTAuthorizer;

/** The raw request body as bytes, whatever API Gateway's encoding. */
export function bodyBytes(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): Buffer {
  if (event.body === undefined || event.body === '') return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** The raw body's length in bytes, without decoding it: a body to refuse is never copied. */
export function bodyByteLength(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): number {
  const body = event.body ?? '';
  if (!event.isBase64Encoded) return Buffer.byteLength(body);
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.floor((body.length * 3) / 4) - padding;
}
