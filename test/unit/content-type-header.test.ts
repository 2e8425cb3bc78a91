import { describe, expect, it } from 'vitest';
import { toApiGatewayEvent } from '#infra/local/gateway/api-gateway-event.ts';
import { contentTypeOf } from '#shared/http/fastapi/content-type.ts';
import { FilePart } from '#shared/http/fastapi/file-part.ts';
import { readJsonBody } from '#shared/http/fastapi/json-body.ts';
import { readForm } from '#shared/http/fastapi/multipart-form.ts';
import { UPLOAD_FORM_LIMITS } from '#shared/user-files/api/upload-form-limits.ts';

/** The event our gateway (as API Gateway) builds from these Content-Type header lines. */
const eventWith = (contentTypes: readonly string[], body: string) =>
  toApiGatewayEvent({
    request: {
      method: 'POST',
      rawHeaders: contentTypes.flatMap((value) => ['Content-Type', value]),
      httpVersion: '1.1',
      socket: { localPort: 8000 },
    },
    rawPath: '/test',
    rawQueryString: '',
    body: Buffer.from(body, 'latin1'),
    routeKey: 'POST /test',
    requestId: 'test-request',
    sourceIp: '127.0.0.1',
  });

describe('the Content-Type Starlette reads: the first header', () => {
  it.each([
    [['application/json'], 'application/json'],
    [['application/json', 'text/plain'], 'application/json'],
    [['text/plain', 'application/json'], 'text/plain'],
    [['', 'application/json'], ''],
    [['multipart/form-data; boundary="a,b"', 'text/plain'], 'multipart/form-data; boundary="a,b"'],
    [['multipart/form-data; boundary="a\\",b"', 'x/y'], 'multipart/form-data; boundary="a\\",b"'],
    [['multipart/form-data; boundary="a\\\\"', 'x/y'], 'multipart/form-data; boundary="a\\\\"'],
    // An unterminated quote: no comma is outside one, so nothing can be told apart.
    [['multipart/form-data; boundary="ab', 'x/y'], 'multipart/form-data; boundary="ab,x/y'],
    // One header with a bare comma (RFC 9110 allows none) reads as two.
    [['application/json, text/plain'], 'application/json'],
  ])('%j reads as %j', (lines, expected) => {
    expect(contentTypeOf(eventWith(lines, ''))).toBe(expected);
  });

  it('is undefined when there is none', () => {
    expect(contentTypeOf(eventWith([], ''))).toBeUndefined();
  });

  it('decides whether a JSON body is read as JSON', () => {
    const body = '{"file_ids":[1]}';
    expect(readJsonBody(eventWith(['application/json', 'text/plain'], body))).toEqual({
      kind: 'value',
      value: { file_ids: [1] },
    });
    expect(readJsonBody(eventWith(['text/plain', 'application/json'], body))).toEqual({
      kind: 'value',
      value: body,
    });
    expect(readJsonBody(eventWith(['', 'application/json'], body))).toEqual({
      kind: 'value',
      value: body,
    });
  });

  it('decides whether a body is read as a form, and with which boundary', () => {
    const form = (boundary: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n` +
      `data\r\n--${boundary}--\r\n`;
    const read = (lines: readonly string[], boundary: string) => {
      const { file } = readForm(eventWith(lines, form(boundary)), UPLOAD_FORM_LIMITS);
      return file instanceof FilePart ? file.filename : file;
    };
    expect(read(['multipart/form-data; boundary=XB', 'text/plain'], 'XB')).toBe('a.pdf');
    expect(read(['multipart/form-data; boundary="X,B"', 'text/plain'], 'X,B')).toBe('a.pdf');
    expect(read(['text/plain', 'multipart/form-data; boundary=XB'], 'XB')).toBeUndefined();
  });
});
