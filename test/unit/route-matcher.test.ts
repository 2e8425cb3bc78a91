import { describe, expect, it } from 'vitest';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import type { ApiRoute } from '#shared/api/routes.ts';

const route = (method: ApiRoute['method'], path: string): ApiRoute => ({
  method,
  path,
  functionId: `${method}${path}`,
  entry: 'x.ts',
  auth: 'jwt',
});
const routes = [
  route('GET', '/api/v1/user/me/file'),
  route('POST', '/api/v1/user/me/file'),
  route('POST', '/api/v1/user/me/file/notify'),
  route('PUT', '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}'),
];
const match = createRouteMatcher(routes);

describe('route matching as API Gateway does it', () => {
  it('matches method and literal path', () => {
    expect(match('GET', '/api/v1/user/me/file')).toEqual({
      kind: 'route',
      route: routes[0],
      params: {},
    });
    expect(match('POST', '/api/v1/user/me/file/notify')).toMatchObject({ route: routes[2] });
  });

  it('binds each {name} to one whole, decoded segment', () => {
    expect(match('PUT', '/api/v1/group/7/deal/x%20y/file/12')).toEqual({
      kind: 'route',
      route: routes[3],
      params: { group_id: '7', deal_id: 'x y', file_id: '12' },
    });
    expect(match('PUT', '/api/v1/group/7/deal/3/file/1/2').kind).toBe('none');
    expect(match('PUT', '/api/v1/group//deal/3/file/1').kind).toBe('none');
  });

  it("names the first route's method when the method is wrong, as Starlette does", () => {
    expect(match('DELETE', '/api/v1/user/me/file')).toEqual({
      kind: 'wrong-method',
      allowed: ['GET'],
    });
  });

  it('does not match a prefix, a suffix or a trailing slash', () => {
    expect(match('GET', '/api/v1/user/me').kind).toBe('none');
    expect(match('GET', '/api/v1/user/me/files').kind).toBe('none');
    expect(match('GET', '/api/v1/user/me/file/').kind).toBe('none');
  });

  it('keeps a malformed escape as it came', () => {
    expect(match('PUT', '/api/v1/group/%E0%A4%A/deal/1/file/1')).toMatchObject({
      params: { group_id: '%E0%A4%A' },
    });
  });
});
