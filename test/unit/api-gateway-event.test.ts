import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { splitTarget, toApiGatewayEvent } from '#infra/local/gateway/api-gateway-event.ts';

function request(method: string, url: string, rawHeaders: string[]): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.method = method;
  message.url = url;
  message.httpVersion = '1.1';
  message.rawHeaders = rawHeaders;
  return message;
}

const build = (rawHeaders: string[], body = Buffer.alloc(0), url = '/a?x=1&x=2&y=3') =>
  toApiGatewayEvent({
    request: request('POST', url, rawHeaders),
    ...splitTarget(url),
    body,
    routeKey: 'POST /a',
    pathParameters: { id: '1' },
    claims: { sub: '42' },
    requestId: 'rid',
    sourceIp: '127.0.0.1',
  });

describe('the payload 2.0 event the local stage builds', () => {
  it('lower-cases headers, joins repeats with commas, and sets cookies apart', () => {
    const event = build([
      'Host',
      'localhost:8000',
      'X-Thing',
      'a',
      'x-thing',
      'b',
      'Cookie',
      'a=1; b=2',
    ]);
    expect(event.headers).toMatchObject({ host: 'localhost:8000', 'x-thing': 'a,b' });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.cookies).toEqual(['a=1', 'b=2']);
  });

  it('joins repeated query parameters and keeps the raw query string', () => {
    const event = build([]);
    expect(event.queryStringParameters).toEqual({ x: '1,2', y: '3' });
    expect(event.rawQueryString).toBe('x=1&x=2&y=3');
    expect(event.rawPath).toBe('/a');
  });

  it('carries route, path parameters, request id and the JWT claims', () => {
    const event = build([]);
    expect(event.routeKey).toBe('POST /a');
    expect(event.pathParameters).toEqual({ id: '1' });
    expect(event.requestContext.requestId).toBe('rid');
    expect(event.requestContext.authorizer.jwt.claims).toEqual({ sub: '42' });
    expect(event.requestContext.http.method).toBe('POST');
  });

  it('passes JSON as text', () => {
    const event = build(['Content-Type', 'application/json'], Buffer.from('{"a":"é"}'));
    expect(event).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
  });

  it.each([['multipart/form-data; boundary=x'], ['application/octet-stream'], ['image/png']])(
    'base64-encodes %s',
    (type) => {
      const bytes = Buffer.from([0, 255, 1, 2]);
      const event = build(['Content-Type', type], bytes);
      expect(event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
    },
  );

  it('base64-encodes a body with no content type, and bytes that are not UTF-8', () => {
    expect(build([], Buffer.from('{}')).isBase64Encoded).toBe(true);
    expect(build(['Content-Type', 'application/json'], Buffer.from([0xff])).isBase64Encoded).toBe(
      true,
    );
  });

  it('splits a request target without parsing it as a URL', () => {
    expect(splitTarget('//[?a=1?b')).toEqual({ rawPath: '//[', rawQueryString: 'a=1?b' });
    expect(splitTarget(undefined)).toEqual({ rawPath: '/', rawQueryString: '' });
  });

  it('has no body for an empty request', () => {
    const event = build([]);
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });
});
