import { generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJwtAuthorizer } from '#infra/local/gateway/jwt-authorizer.ts';
import { UnauthorizedError } from '#shared/http/http-errors.ts';

const ISSUER = 'http://localhost/identity';

async function setup() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const authorize = createJwtAuthorizer({ issuer: ISSUER, audiences: ['files'], publicKey });
  const token = (claims: { exp: number; nbf?: number }) =>
    new SignJWT({ sub: '5', ...claims })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience('files')
      .sign(privateKey);
  return { authorize, token };
}

/** The reason the refusal gives, as API Gateway's challenge header carries it. */
async function refusal(work: Promise<unknown>): Promise<string> {
  const error: unknown = await work.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(UnauthorizedError);
  return (error as UnauthorizedError).headers['www-authenticate'] ?? '';
}

describe('the local JWT authorizer remembers the tokens it verified', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a remembered token once it expires, for the reason it always gave', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-23T10:00:00Z') });
    const { authorize, token } = await setup();
    const now = Math.floor(Date.now() / 1000);
    const bearer = `Bearer ${await token({ exp: now + 60 })}`;
    expect(await authorize(bearer)).toMatchObject({ sub: '5' });
    vi.setSystemTime(Date.now() + 59_000);
    expect(await authorize(bearer)).toMatchObject({ sub: '5' });
    vi.setSystemTime(Date.now() + 1_000);
    expect(await refusal(authorize(bearer))).toContain('error_description="the token has expired"');
  });

  it('checks a remembered token not valid yet again, and lets it in once it is', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-23T10:00:00Z') });
    const { authorize, token } = await setup();
    const now = Math.floor(Date.now() / 1000);
    const bearer = `Bearer ${await token({ exp: now + 600, nbf: now + 60 })}`;
    expect(await refusal(authorize(bearer))).toContain('the token is not valid yet');
    vi.setSystemTime(Date.now() + 60_000);
    expect(await authorize(bearer)).toMatchObject({ sub: '5' });
  });

  it('never remembers a token it refused', async () => {
    const { authorize, token } = await setup();
    const signed = await token({ exp: Math.floor(Date.now() / 1000) + 600 });
    const tampered = `Bearer ${signed.slice(0, -4)}AAAA`;
    for (let i = 0; i < 2; i++) {
      expect(await refusal(authorize(tampered))).toContain('signature is invalid');
    }
  });
});
