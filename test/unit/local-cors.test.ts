import { describe, expect, it } from 'vitest';
import {
  apiCorsHeaders,
  originMatches,
  withApiCors,
} from '#infra/local/gateway/api-gateway-cors.ts';
import { apiCorsRule } from '#infra/stacks/cors-rules.ts';

describe('originMatches: one * at most, as S3 and API Gateway match', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com', true],
    ['https://app.example.com', 'https://app.example.com:443', false],
    ['https://app.example.com', 'http://app.example.com', false],
    ['*', 'null', true],
    ['http://*', 'http://localhost:5173', true],
    ['http://*', 'https://localhost:5173', false],
    ['https://*', 'https://app.example.com', true],
    ['http://*.example.com', 'http://a.b.example.com', true],
    ['http://*.example.com', 'http://example.com', false],
    ['http://localhost:*', 'http://localhost:8000', true],
    ['http://localhost:*', 'http://localhost.evil.example', false],
  ])('%s admits %s: %s', (pattern, origin, admitted) => {
    expect(originMatches(pattern, origin)).toBe(admitted);
  });

  it('refuses a pattern with two stars', () => {
    expect(() => originMatches('http://*.*', 'http://a.b')).toThrow('at most one *');
  });
});

describe("the gateway's CORS headers (API Gateway's, for its configuration)", () => {
  const rule = apiCorsRule(['http://127.0.0.1:5173']);
  if (rule === undefined) throw new Error('origins give a rule');
  const ask = (method: string, headers: Record<string, string>) =>
    apiCorsHeaders(rule, { method, headers });

  it('a preflight from an allowed origin: the lists and the max age', () => {
    expect(
      ask('OPTIONS', {
        origin: 'http://127.0.0.1:5173',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization',
      }),
    ).toEqual({
      'access-control-allow-origin': 'http://127.0.0.1:5173',
      vary: 'origin',
      'access-control-allow-methods': 'DELETE,GET,PATCH,POST,PUT',
      'access-control-allow-headers': 'authorization,content-type,idempotency-key',
      'access-control-max-age': '3600',
    });
  });

  it('an actual request: the origin and the exposed headers; `*` when `*` is allowed', () => {
    expect(ask('GET', { origin: 'http://127.0.0.1:5173' })).toEqual({
      'access-control-allow-origin': 'http://127.0.0.1:5173',
      vary: 'origin',
      'access-control-expose-headers': 'link,location,retry-after,x-checksum-sha256',
    });
    const any = apiCorsRule(['*']);
    if (any === undefined) throw new Error('origins give a rule');
    expect(apiCorsHeaders(any, { method: 'GET', headers: { origin: 'http://x.example' } })).toEqual(
      {
        'access-control-allow-origin': '*',
        'access-control-expose-headers': 'link,location,retry-after,x-checksum-sha256',
      },
    );
  });

  it('nothing for an origin not allowed, or no origin; OPTIONS without a method is no preflight', () => {
    expect(
      ask('OPTIONS', { origin: 'http://127.0.0.2:5173', 'access-control-request-method': 'GET' }),
    ).toEqual({});
    expect(ask('GET', {})).toEqual({});
    expect(ask('OPTIONS', { origin: 'http://127.0.0.1:5173' })).not.toHaveProperty(
      'access-control-allow-methods',
    );
  });

  it("puts its CORS headers in place of the integration's, keeping the integration's Vary", () => {
    const integration = { 'Access-Control-Allow-Origin': '*', 'content-type': 'text/plain' };
    expect(withApiCors({ ...integration, vary: 'accept' }, { vary: 'origin' })).toEqual({
      'content-type': 'text/plain',
      vary: 'accept, origin',
    });
  });
});
