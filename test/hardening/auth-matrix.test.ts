/**
 * Every route × every way a caller may try to get in without the right: the exact refusal,
 * never a 2xx, and the table and bucket exactly as they were.
 */
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '#functions/service-functions.ts';
import { type DocumentedRoute, routeKey } from '#shared/api/routes.ts';
import { userFileObjectKey } from '#shared/storage/keys.ts';
import { toDirectUploadItem } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { toNotificationItem } from '#shared/notifications/adapters/dynamo-notification-repository.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { dealFile, seedDeals } from '#test/support/deal-fixtures.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { NOT_FOUND, UNAUTHORIZED } from '#test/support/fastapi-bodies.ts';
import { loadRouteFacts, type OwnedIds, type Refusal } from '#test/support/route-facts.ts';

const stage = useTestStage();
const FACTS = await loadRouteFacts();

const OWNER = 4100;
const INTRUDER = 4200;
const GROUP = 41;
const DEAL = 1;
const FILE = 7;
const DEAL_FILE = 8;
const NOTIFICATION = 'bbbbbbbb-0000-4000-8000-000000000001';
const PENDING_UPLOAD = 9;
const OWNED: OwnedIds = {
  file: FILE,
  pendingUpload: PENDING_UPLOAD,
  notification: NOTIFICATION,
  group: GROUP,
  deal: DEAL,
  dealFile: DEAL_FILE,
};
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A request each route would grant its owner, from its route facts: the intruder tries it
 * with the owner's ids.
 */
function requestFor(route: DocumentedRoute): { path: string; init: RequestInit } {
  const { path, json, form } = FACTS.requestOf(route, OWNED);
  const body =
    form ??
    (json === undefined
      ? undefined
      : { contentType: 'application/json', body: JSON.stringify(json) });
  return {
    path,
    init: {
      method: route.method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': body.contentType }, body: body.body }),
    },
  };
}

/**
 * The intruder, with a valid token, on the owner's ids: what each route must answer. A route
 * with an id in its path answers FastAPI's 404, as for an id that names nothing; one without
 * answers only from the caller's own area. A route that takes ids in its body says in its
 * route facts what it answers (`answerToIntruder`).
 */
const otherUsersIds = (route: DocumentedRoute): Refusal | 'own-data-only' =>
  FACTS.of(route).answerToIntruder?.(OWNED) ??
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
  it('says what an intruder gets only of routes the authorizer guards', () => {
    const named = API_ROUTES.filter((route) => FACTS.of(route).answerToIntruder !== undefined);
    expect(named.filter((route) => route.auth !== 'jwt').map(routeKey)).toEqual([]);
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
        expect(
          response.status,
          `${routeKey(route)}: refused, so its route facts say what it answers (answerToIntruder)`,
        ).toBeLessThan(300);
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
