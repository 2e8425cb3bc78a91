import { connect } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { API_OPERATIONS, API_ROUTES, type RouteKey } from '#functions/service-functions.ts';
import { routeKey } from '#shared/api/routes.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';

const stage = useTestStage();

/** Bytes no HTTP client would send as written: the stage's whole reply, as text. */
const rawRequest = (text: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(stage().port, '127.0.0.1', () => {
      socket.end(text);
    });
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    socket.on('end', () => {
      resolve(data);
    });
    socket.on('error', reject);
  });

const LIST = '/api/v1/user/me/file';
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function expectUnauthorized(authorization: string | undefined, reason: RegExp) {
  const response = await fetch(`${stage().url}${LIST}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual(UNAUTHORIZED);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer scope="" error="invalid_token" error_description="/);
  expect(challenge).toMatch(reason);
}

describe('the local stage refuses what the deployed JWT authorizer refuses', () => {
  it('no Authorization header', async () => {
    await expectUnauthorized(undefined, /missing/);
  });

  it.each([
    ['Bearer'],
    ['Bearer '],
    ['Bearer not-a-jwt'],
    ['Bearer a.b.c'],
    ['Basic dXNlcjpwYXNz'],
  ])('a malformed header: %j', async (header) => {
    await expectUnauthorized(header, /missing|malformed/);
  });

  it('an expired token', async () => {
    await expectUnauthorized(`Bearer ${await stage().token(1, { expiresIn: -60 })}`, /expired/);
  });

  it('a token that is not valid yet', async () => {
    const token = await stage().token(1, { claims: { nbf: now() + 600 } });
    await expectUnauthorized(`Bearer ${token}`, /not valid yet/);
  });

  it('a token with no expiry', async () => {
    const token = await stage().token(1, { claims: { exp: undefined } });
    await expectUnauthorized(`Bearer ${token}`, /exp/);
  });

  it('a token signed with another key', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({
      sub: '1',
      iss: stage().identityProvider.issuer,
      aud: stage().identityProvider.audience,
    })
      .setProtectedHeader({ alg: 'RS256', kid: stage().identityProvider.keyId })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    await expectUnauthorized(`Bearer ${token}`, /signature/);
  });

  it('a token from a foreign issuer', async () => {
    const token = await stage().token(1, { claims: { iss: 'https://evil.example/' } });
    await expectUnauthorized(`Bearer ${token}`, /issuer/);
  });

  it('a token for another audience', async () => {
    const token = await stage().token(1, { claims: { aud: 'another-api' } });
    await expectUnauthorized(`Bearer ${token}`, /audience/);
  });

  it('an unsigned token (alg none)', async () => {
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({
      sub: '1',
      iss: stage().identityProvider.issuer,
      aud: stage().identityProvider.audience,
      exp: now() + 600,
    })}.`;
    await expectUnauthorized(`Bearer ${token}`, /RS256|malformed/);
  });

  it('a valid token whose sub is not a user id, refused by the function', async () => {
    const token = await stage().token('auth0|abc');
    await expectUnauthorized(`Bearer ${token}`, /sub claim/);
  });

  it('accepts the token with or without the Bearer prefix, as API Gateway does', async () => {
    const token = await stage().token(1);
    for (const authorization of [`Bearer ${token}`, `bearer ${token}`, token]) {
      const response = await fetch(`${stage().url}${LIST}`, { headers: { authorization } });
      expect(response.status).toBe(200);
    }
  });
});

describe("FastAPI's answers for requests no route takes", () => {
  it('an unknown path is 404, with or without a token', async () => {
    for (const as of [undefined, 1]) {
      const response = await stage().request(
        '/api/v1/nothing/here',
        as === undefined ? {} : { as },
      );
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(NOT_FOUND);
    }
  });

  it.each([['PUT'], ['DELETE'], ['PATCH']])(
    'a known path with another method (%s) is 405, naming the allowed ones',
    async (method) => {
      const response = await stage().request(LIST, { method, as: 1 });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET');
      expect(await response.json()).toEqual({ detail: 'Method Not Allowed' });
    },
  );

  it('a trailing slash redirects (307) to the route without it, by path alone', async () => {
    const response = await stage().request(`${LIST}/?a=1`, { redirect: 'manual' });
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe(`${LIST}?a=1`);
  });

  it("never redirects to the client's Host or scheme", async () => {
    const reply = await rawRequest(
      `GET ${LIST}/ HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Proto: gopher\r\n` +
        'X-Forwarded-Host: evil.example\r\nConnection: close\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 307 /);
    expect(reply).toMatch(new RegExp(`\r\nlocation: ${LIST}\r\n`, 'i'));
    expect(reply).not.toContain('evil.example');
    expect(reply).not.toContain('gopher');
  });

  it('survives a request line that is not a URL, answering 404', async () => {
    const reply = await rawRequest(
      'GET //[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 404 /);
    expect(reply.endsWith('{"detail":"Not Found"}')).toBe(true);
    expect((await stage().request('/api/v1/user/me/file', { as: 1 })).status).toBe(200);
  });

  it('every answer carries the API Gateway request id', async () => {
    const response = await stage().request('/nope');
    expect(response.headers.get('apigw-requestid')).toMatch(/^[A-Za-z0-9+/]{14}=$/);
  });
});

describe('answers every JSON route shares', () => {
  const jsonRoutes = API_ROUTES.filter(
    (route) => API_OPERATIONS[routeKey(route) as RouteKey].request.body !== undefined,
  );

  const unreadable = {
    'a body in no encoding Python’s json reads': Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x00]),
    // Within every route's body limit (a deeper one is larger than any valid request: a 413).
    'JSON nested deeper than Python reads': `${'['.repeat(1001)}${']'.repeat(1001)}`,
  };

  it.each(
    jsonRoutes.flatMap((route) =>
      Object.entries(unreadable).map(
        ([what, body]) => [routeKey(route), what, route, body] as const,
      ),
    ),
  )('%s: %s → 400, nothing stored', async (_key, _what, route, body) => {
    const before = await stage().stored();
    const path = route.path
      .replace('{group_id}', '1')
      .replace('{deal_id}', '3')
      .replace('{file_id}', '6');
    const response = await stage().request(path, {
      method: route.method,
      as: 1,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: 'There was an error parsing the body' });
    expect(await stage().stored()).toEqual(before);
  });

  it('covers every JSON route: each route whose declaration gives a request example', () => {
    const exampled = API_ROUTES.filter((route) => route.operation.requestExample !== undefined);
    expect(exampled.length).toBeGreaterThan(0);
    expect(jsonRoutes.map(routeKey).sort()).toEqual(exampled.map(routeKey).sort());
  });
});
