import { describe, expect, it } from 'vitest';
import {
  apiCorsHeaders,
  originMatches,
  withoutIntegrationCors,
} from '#infra/local/gateway/api-gateway-cors.ts';
import { answerS3Preflight, s3CorsHeaders } from '#infra/local/object-store/s3-cors.ts';
import { apiCorsRule, bucketCorsRules } from '#infra/stacks/cors-rules.ts';

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

  it("drops the integration's own CORS headers", () => {
    expect(
      withoutIntegrationCors({ 'Access-Control-Allow-Origin': '*', 'content-type': 'text/plain' }),
    ).toEqual({ 'content-type': 'text/plain' });
  });
});

describe("the object store's preflight (S3's, from the bucket's rules)", () => {
  const rules = bucketCorsRules(['http://127.0.0.1:5173']);

  it('a matched rule: the origin, its methods, the headers asked for, and Vary', () => {
    expect(
      answerS3Preflight(rules, {
        origin: 'http://127.0.0.1:5173',
        'access-control-request-method': 'POST',
      }),
    ).toEqual({
      kind: 'allowed',
      headers: {
        'access-control-allow-origin': 'http://127.0.0.1:5173',
        'access-control-allow-methods': 'POST',
        'access-control-expose-headers': 'ETag',
        'access-control-max-age': '3600',
        vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
      },
    });
    // The download link's rule admits any origin, `null` (a redirected request's) too.
    expect(
      answerS3Preflight(rules, { origin: 'null', 'access-control-request-method': 'GET' }),
    ).toMatchObject({ kind: 'allowed', headers: { 'access-control-allow-origin': '*' } });
  });

  it('403 for an origin, method or header no rule allows; 400 without Origin or method', () => {
    const forbidden = {
      kind: 'refused',
      error: {
        status: 403,
        code: 'AccessForbidden',
        message:
          "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
        details: { Method: 'OPTIONS', ResourceType: 'OBJECT' },
      },
    };
    const asked = { origin: 'http://127.0.0.1:5173', 'access-control-request-method': 'POST' };
    expect(answerS3Preflight(rules, { ...asked, origin: 'http://127.0.0.2:5173' })).toEqual(
      forbidden,
    );
    expect(answerS3Preflight(rules, { ...asked, 'access-control-request-method': 'PUT' })).toEqual(
      forbidden,
    );
    expect(
      answerS3Preflight(rules, { ...asked, 'access-control-request-headers': 'x-amz-acl' }),
    ).toEqual(forbidden);
    expect(answerS3Preflight([], asked)).toMatchObject({
      kind: 'refused',
      error: { status: 403, code: 'CORSResponse', message: 'CORS is not enabled for this bucket.' },
    });
    expect(answerS3Preflight(rules, { 'access-control-request-method': 'GET' })).toMatchObject({
      error: { status: 400, code: 'BadRequest' },
    });
    expect(answerS3Preflight(rules, { origin: 'http://127.0.0.1:5173' })).toMatchObject({
      error: { status: 400, message: 'Invalid Access-Control-Request-Method: null' },
    });
  });

  it("puts the matched rule's headers on a request's answer; none for another origin", () => {
    expect(s3CorsHeaders(rules, 'POST', { origin: 'http://127.0.0.1:5173' })).toEqual({
      'access-control-allow-origin': 'http://127.0.0.1:5173',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'ETag',
      'access-control-max-age': '3600',
      vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    });
    expect(s3CorsHeaders(rules, 'POST', { origin: 'http://127.0.0.1:5174' })).toEqual({});
    expect(s3CorsHeaders(rules, 'POST', {})).toEqual({});
  });
});
