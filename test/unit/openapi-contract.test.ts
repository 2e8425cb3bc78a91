import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { type OpenApiDocument, openApiContract } from '#test/support/openapi-contract.ts';

const contract = openApiContract(buildOpenApiDocument() as unknown as OpenApiDocument);

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const observed = (
  method: string,
  path: string,
  status: number,
  body: Uint8Array = new Uint8Array(),
  headers: Record<string, string> = body.length > 0 ? { 'content-type': 'application/json' } : {},
) => ({ method, path, status, headers: new Headers(headers), body });

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

  it('fails an undocumented media type, a missing required header, and a stray body', () => {
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
    ).toEqual([
      'POST /api/v1/user/me/file/notify → 202: the documented header location is missing',
    ]);
    expect(
      contract.check(observed('DELETE', '/api/v1/group/1/deal/2/file/3', 204, json({}))),
    ).toEqual([
      'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} → 204: a body where none is documented',
    ]);
  });

  it("holds requests no route matches to the fallback's 404, 405 and 307", () => {
    expect(contract.check(observed('GET', '/nope', 404, json({ detail: 'Not Found' })))).toEqual(
      [],
    );
    expect(
      contract.check(
        observed('PATCH', '/api/v1/user/me/file', 405, json({ detail: 'Method Not Allowed' }), {
          'content-type': 'application/json',
          allow: 'GET',
        }),
      ),
    ).toEqual([]);
    expect(contract.check(observed('GET', '/nope', 200, json({})))).toEqual([
      'GET /nope (no route): status 200 is not in the document',
    ]);
    expect(contract.check(observed('GET', '/nope', 404, json({ message: 'x' })))).toHaveLength(1);
  });
});
