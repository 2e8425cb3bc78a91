import { describe, expect, it } from 'vitest';
import { serviceContract as contract } from '#test/support/contract-check.ts';

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const observed = (
  method: string,
  path: string,
  status: number,
  body: Uint8Array = new Uint8Array(),
  headers: Record<string, string> = body.length > 0 ? { 'content-type': 'application/json' } : {},
) => ({ method, path, status, headers, body });

const USER_FILE = { name: 'a.pdf', id: 1, user_id: 2, filesize: 3 };

describe('the contract check', () => {
  it('passes documented answers', () => {
    expect(contract.check(observed('GET', '/api/v1/user/me/file', 200, json([USER_FILE])))).toEqual(
      [],
    );
    expect(
      contract.check(
        observed('GET', '/api/v1/user/me/file', 401, json({ message: 'Unauthorized' }), {
          'content-type': 'application/json',
          'www-authenticate': 'Bearer',
        }),
      ),
    ).toEqual([]);
    expect(contract.check(observed('DELETE', '/api/v1/group/1/deal/2/file/3', 204))).toEqual([]);
  });

  it('fails a status the route does not document', () => {
    expect(contract.check(observed('GET', '/api/v1/user/me/file', 418, json({})))).toEqual([
      'GET /api/v1/user/me/file: status 418 is not in the document',
    ]);
  });

  it('fails a body that does not match its schema, down to an extra field', () => {
    const [problem] = contract.check(
      observed('GET', '/api/v1/user/me/file', 200, json([{ ...USER_FILE, secret: 'x' }])),
    );
    expect(problem).toMatch(
      /^GET \/api\/v1\/user\/me\/file → 200: the body does not match the schema: .*additional properties/,
    );
    expect(
      contract.check(observed('GET', '/api/v1/user/me/file', 200, json([{ id: '1' }]))),
    ).toHaveLength(1);
  });

  it('fails an undocumented media type, a missing or wrong header, and a stray body', () => {
    expect(
      contract.check(
        observed('GET', '/api/v1/user/me/file', 200, json([]), { 'content-type': 'text/plain' }),
      ),
    ).toEqual([
      'GET /api/v1/user/me/file → 200: media type "text/plain" is not documented (application/json)',
    ]);
    expect(
      contract.check(
        observed(
          'POST',
          '/api/v1/user/me/file/notify',
          202,
          json({ notification_id: 'n', status: 'queued', file_count: 1 }),
        ),
      ),
    ).toEqual(['POST /api/v1/user/me/file/notify → 202: header location is missing']);
    expect(
      contract.check(
        observed('GET', '/api/v1/user/me/file/1/download', 302, new Uint8Array(), {
          location: 'https://s3.example/x',
          'cache-control': 'max-age=60',
        }),
      ),
    ).toEqual([
      'GET /api/v1/user/me/file/{file_id}/download → 302: header cache-control: data must be equal to constant ("max-age=60")',
    ]);
    expect(
      contract.check(observed('DELETE', '/api/v1/group/1/deal/2/file/3', 204, json({}))),
    ).toEqual([
      'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} → 204: a body where none is documented',
    ]);
  });

  it("holds requests no route matches to exactly the fallback's answer", () => {
    const notFound = json({ detail: 'Not Found' });
    expect(contract.check(observed('GET', '/nope', 404, notFound))).toEqual([]);
    expect(
      contract.check(
        observed('PATCH', '/api/v1/user/me/file', 405, json({ detail: 'Method Not Allowed' }), {
          'content-type': 'application/json',
          allow: 'GET',
        }),
      ),
    ).toEqual([]);
    expect(
      contract.check(
        observed('GET', '/api/v1/user/me/file/', 307, new Uint8Array(), { location: '/x' }),
      ),
    ).toEqual([]);
    // The path exists under other methods: only a 405 will do.
    expect(contract.check(observed('PATCH', '/api/v1/user/me/file', 404, notFound))).toEqual([
      'PATCH /api/v1/user/me/file (no route): status 404 is not in the document',
    ]);
    expect(contract.check(observed('GET', '/nope', 307))).toEqual([
      'GET /nope (no route): status 307 is not in the document',
    ]);
    expect(contract.check(observed('GET', '/nope', 404, json({ message: 'x' })))).toHaveLength(1);
  });

  it('prefers the route with fewer path parameters, as API Gateway does', () => {
    // /docs/{asset} would match /docs/x; /openapi.json has no parameters and wins its own path.
    expect(
      contract.check(
        observed('GET', '/openapi.json', 200, json({ openapi: '3.1.0' }), {
          'content-type': 'application/json',
        }),
      ),
    ).toEqual([]);
  });
});
