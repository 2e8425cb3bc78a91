/**
 * Every route × every way a caller may try to get in without the right: the exact refusal,
 * never a 2xx, and the table and bucket exactly as they were.
 */
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '#functions/service-functions.ts';
import { type ApiRoute, routeKey } from '#shared/api/routes.ts';
import { userFileObjectKey } from '#shared/storage/keys.ts';
import { toDirectUploadItem } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { toNotificationItem } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';

const stage = useTestStage();

const OWNER = 4100;
const INTRUDER = 4200;
const GROUP = 41;
const DEAL = 1;
const FILE = 7;
const DEAL_FILE = 8;
const NOTIFICATION = 'bbbbbbbb-0000-4000-8000-000000000001';
const PENDING_UPLOAD = 9;
const ROOM = `local:v1:group:${String(GROUP)}:deal:${String(DEAL)}`;
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A request each route would grant its owner: the intruder tries it with the owner's ids. */
function requestFor(route: ApiRoute): { path: string; init: RequestInit } {
  const path = route.path
    .replace('{group_id}', String(GROUP))
    .replace('{deal_id}', String(DEAL))
    .replace('{file_id}', route.path.includes('/group/') ? String(DEAL_FILE) : String(FILE))
    .replace('{notification_id}', NOTIFICATION)
    .replace('{asset}', 'swagger-ui.css');
  const json = (body: unknown): RequestInit => ({
    method: route.method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  switch (routeKey(route)) {
    case 'POST /api/v1/user/me/file': {
      const form = uploadForm('intruding bytes', { name: 'x.pdf' });
      return {
        path,
        init: { method: 'POST', headers: { 'content-type': form.contentType }, body: form.body },
      };
    }
    case 'POST /api/v1/user/me/file/upload':
      return { path, init: json({ name: 'x.pdf', type: 'deck', filesize: 10 }) };
    case 'POST /api/v1/user/me/file/upload/{file_id}/complete':
      return {
        path: path.replace(`/${String(FILE)}/`, `/${String(PENDING_UPLOAD)}/`),
        init: { method: 'POST' },
      };
    case 'POST /api/v1/user/me/file/notify':
      return { path, init: json({ file_ids: [FILE] }) };
    case 'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}':
      return { path, init: json({ type: 'other' }) };
    case 'PATCH /api/v1/user/me/file/{file_id}':
      return { path, init: json({ name: 'taken.pdf', is_archived: true }) };
    case 'POST /api/v1/auth/get-realtime-token':
      return { path, init: json({ room_ids: [ROOM] }) };
    default:
      return { path, init: { method: route.method } };
  }
}

/**
 * The intruder, with a valid token, on the owner's ids: what each route must answer. A route
 * with an id in its path answers FastAPI's 404, as for an id that names nothing; one without
 * answers only from the caller's own area. The routes that take ids in their body say here
 * what they answer.
 */
const IDS_IN_THE_BODY: Readonly<Record<string, { status: number; body: unknown }>> = {
  'POST /api/v1/user/me/file/notify': {
    status: 404,
    body: { detail: `File not found: ${String(FILE)}` },
  },
  'POST /api/v1/auth/get-realtime-token': { status: 404, body: NOT_FOUND },
};
const otherUsersIds = (route: ApiRoute): { status: number; body: unknown } | 'own-data-only' =>
  IDS_IN_THE_BODY[routeKey(route)] ??
  (route.path.includes('{') ? { status: 404, body: NOT_FOUND } : 'own-data-only');

interface Attack {
  readonly name: string;
  readonly authorization: () => Promise<string | undefined> | string | undefined;
  /** The authorizer's `error_description`. */
  readonly reason: string;
}

let attacks: Attack[] = [];

beforeAll(async () => {
  const { identityProvider } = stage();
  const claims = {
    sub: String(OWNER),
    iss: identityProvider.issuer,
    aud: identityProvider.audience,
  };
  const spki = await exportSPKI(identityProvider.publicKey);
  const publicJwk = JSON.stringify(await exportJWK(identityProvider.publicKey));
  const hs256 = (secret: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: identityProvider.keyId })
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret));
  const realtime = await stage().request('/api/v1/auth/get-realtime-token', {
    method: 'POST',
    as: OWNER,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ room_ids: [] }),
  });
  const { token: realtimeToken } = (await realtime.json()) as { token: string };
  attacks = [
    {
      name: 'no Authorization header',
      authorization: () => undefined,
      reason: 'the token is missing',
    },
    {
      name: '`Bearer` with nothing',
      authorization: () => 'Bearer ',
      // The header is trimmed on the way, leaving `Bearer` alone: no token to read.
      reason: 'the token is malformed',
    },
    {
      name: 'garbage',
      authorization: () => 'Bearer not.a.jwt',
      reason: 'the token is malformed',
    },
    {
      name: 'alg none',
      authorization: () =>
        `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, exp: now() + 600 })}.`,
      reason: 'the token is not signed with RS256',
    },
    {
      name: 'HS256 signed with the public key (PEM)',
      authorization: async () => `Bearer ${await hs256(spki)}`,
      reason: 'the token is not signed with RS256',
    },
    {
      name: 'HS256 signed with the public key (JWK)',
      authorization: async () => `Bearer ${await hs256(publicJwk)}`,
      reason: 'the token is not signed with RS256',
    },
    {
      name: 'expired',
      authorization: async () => `Bearer ${await stage().token(OWNER, { expiresIn: -60 })}`,
      reason: 'the token has expired',
    },
    {
      name: 'not yet valid',
      authorization: async () =>
        `Bearer ${await stage().token(OWNER, { claims: { nbf: now() + 600 } })}`,
      reason: 'the token is not valid yet',
    },
    {
      name: 'wrong issuer',
      authorization: async () =>
        `Bearer ${await stage().token(OWNER, { claims: { iss: 'https://evil.example/' } })}`,
      reason: 'the token does not have a valid issuer',
    },
    {
      name: 'wrong audience',
      authorization: async () =>
        `Bearer ${await stage().token(OWNER, { claims: { aud: 'realtime' } })}`,
      reason: 'the token does not have a valid audience',
    },
    {
      name: 'RS256, signed by another key under our kid',
      authorization: async () => {
        const { privateKey } = await generateKeyPair('RS256');
        const forged = await new SignJWT(claims)
          .setProtectedHeader({ alg: 'RS256', kid: identityProvider.keyId })
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(privateKey);
        return `Bearer ${forged}`;
      },
      reason: 'signature is invalid',
    },
    {
      name: 'a valid token whose sub is not a user id',
      authorization: async () => `Bearer ${await stage().token('auth0|4100')}`,
      reason: 'the sub claim is not a user id',
    },
    {
      name: 'a realtime token used as an API token',
      authorization: () => `Bearer ${realtimeToken}`,
      reason: 'the token is not signed with RS256',
    },
  ];

  // The owner's things, which the intruder goes after.
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  await stage().put([
    toUserFileItem({
      id: FILE,
      userId: OWNER,
      name: 'owner.pdf',
      type: 'deck',
      createdAt: hourAgo,
      updatedAt: null,
      isArchived: false,
      filesize: 5,
      location: `s3://${stage().bucket}/${userFileObjectKey(OWNER, FILE)}`,
    }),
    toDirectUploadItem({
      id: PENDING_UPLOAD,
      userId: OWNER,
      name: 'big.xlsx',
      type: 'financials',
      contentType: 'application/octet-stream',
      declaredSize: 5,
      createdAt: hourAgo,
      expiresAt: new Date(Date.now() + 900_000).toISOString(),
      status: 'pending',
      reserved: true,
    }),
    toNotificationItem({
      userId: OWNER,
      notificationId: NOTIFICATION,
      files: [],
      fundName: null,
      message: null,
      status: 'sent',
      createdAt: hourAgo,
      updatedAt: hourAgo,
      sentAt: hourAgo,
      attempts: 1,
      roundAttempts: 1,
      lastError: null,
      notBefore: null,
      leaseUntil: null,
      version: 2,
    }),
  ]);
  // The pending upload gets no object: its arrival would have the finalizer complete it.
  await stage().s3.send(
    new PutObjectCommand({
      Bucket: stage().bucket,
      Key: userFileObjectKey(OWNER, FILE),
      Body: 'bytes',
    }),
  );
  await seedDeals(stage(), {
    groups: [GROUP],
    members: [{ groupId: GROUP, userId: OWNER, role: 'editor' }],
    deals: [{ groupId: GROUP, dealId: DEAL }],
    files: [dealFile(GROUP, DEAL, DEAL_FILE)],
  });
});

const protectedRoutes = API_ROUTES.filter((route) => route.auth === 'jwt');
const publicRoutes = API_ROUTES.filter((route) => route.auth === 'none');

describe('the authorization matrix', () => {
  it('names only routes the authorizer guards', () => {
    const guarded = protectedRoutes.map(routeKey);
    expect(Object.keys(IDS_IN_THE_BODY).filter((key) => !guarded.includes(key))).toEqual([]);
  });

  it.each(protectedRoutes.map((route) => [routeKey(route), route] as const))(
    '%s: each of thirteen forged, stale or misplaced tokens → 401, nothing changed',
    async (_key, route) => {
      const before = await stage().stored();
      for (const attack of attacks) {
        const { path, init } = requestFor(route);
        const authorization = await attack.authorization();
        const response = await stage().request(path, {
          ...init,
          headers: {
            ...(init.headers as Record<string, string> | undefined),
            ...(authorization === undefined ? {} : { authorization }),
          },
        });
        expect(response.status, attack.name).toBe(401);
        expect(await response.json(), attack.name).toEqual(UNAUTHORIZED);
        expect(response.headers.get('www-authenticate'), attack.name).toBe(
          `Bearer scope="" error="invalid_token" error_description="${attack.reason}"`,
        );
      }
      expect(await stage().stored()).toEqual(before);
    },
  );

  it.each(protectedRoutes.map((route) => [routeKey(route), route] as const))(
    "%s: another user's ids → the owner's things stay unseen and untouched",
    async (_key, route) => {
      const before = await stage().stored();
      const { path, init } = requestFor(route);
      const response = await stage().request(path, { ...init, as: INTRUDER });
      const expected = otherUsersIds(route);
      if (expected === 'own-data-only') {
        // No ids to steal: the intruder gets only their own area, which holds nothing of the
        // owner's.
        expect(response.status).toBeLessThan(300);
        expect(JSON.stringify(await response.json())).not.toContain(String(OWNER));
        const after = await stage().stored();
        const owners = (items: typeof after.items) =>
          items.filter(
            (i) =>
              String(i.PK).includes(String(OWNER)) ||
              String(i.PK).includes(`GROUP#${String(GROUP)}`),
          );
        expect(owners(after.items)).toEqual(owners(before.items));
        return;
      }
      expect(response.status).toBe(expected.status);
      expect(await response.json()).toEqual(expected.body);
      expect(await stage().stored()).toEqual(before);
    },
  );

  it.each(publicRoutes.map((route) => [routeKey(route), route] as const))(
    '%s: public, and the same whatever Authorization says',
    async (_key, route) => {
      const before = await stage().stored();
      const { path } = requestFor(route);
      const plain = await stage().request(path);
      const expected = Buffer.from(await plain.arrayBuffer());
      expect(plain.status).toBe(200);
      for (const attack of attacks) {
        const authorization = await attack.authorization();
        const response = await stage().request(path, {
          headers: authorization === undefined ? {} : { authorization },
        });
        expect(response.status, attack.name).toBe(200);
        expect(Buffer.from(await response.arrayBuffer()).equals(expected), attack.name).toBe(true);
      }
      expect(await stage().stored()).toEqual(before);
    },
  );
});
