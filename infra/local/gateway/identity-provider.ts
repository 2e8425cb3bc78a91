import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { API_AUDIENCE, LOCAL_STAGE_ISSUER } from '../../stages.ts';
import { createOnce, unless } from '../stage-credentials.ts';

/** The local stage's identity provider: what Cognito or Auth0 is to a deployed stage. */
const ALGORITHM = 'RS256';

export interface LocalIdentityProvider {
  readonly issuer: string;
  readonly audience: string;
  readonly keyId: string;
  readonly publicKey: CryptoKey;
  /** Signs a token for a user, as the provider would after a login. */
  issueToken(options: IssueTokenOptions): Promise<string>;
}

export interface IssueTokenOptions {
  readonly userId: number | string;
  /** Lifetime in seconds from now (default one hour); negative gives an expired token. */
  readonly expiresIn?: number;
  /** Extra or overriding claims, for tests of what the authorizer refuses. */
  readonly claims?: JWTPayload;
}

/**
 * The key pair under the data folder, made on first use. Written whole to a temporary file,
 * then linked into place: when `npm start` and `npm run token` race on a fresh folder, one
 * key wins and nobody reads half a file.
 */
async function readOrCreatePrivateJwk(path: string): Promise<JWK> {
  const read = async () => JSON.parse(await readFile(path, 'utf8')) as JWK;
  const exists = await read().catch(unless('ENOENT'));
  if (exists !== undefined) return exists;
  const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: ALGORITHM, use: 'sig' };
  await createOnce(path, JSON.stringify(jwk, null, 2));
  return read();
}

/** The provider whose RS256 key pair lives under the local data folder (made on first use). */
export async function loadIdentityProvider(dataDir: string): Promise<LocalIdentityProvider> {
  const privateJwk = await readOrCreatePrivateJwk(join(dataDir, 'idp', 'signing-key.json'));
  const keyId = privateJwk.kid ?? 'local';
  const privateKey = (await importJWK(privateJwk, ALGORITHM)) as CryptoKey;
  const { kty, n, e } = privateJwk;
  const publicKey = (await importJWK({ kty, n, e }, ALGORITHM)) as CryptoKey;
  return {
    ...{ issuer: LOCAL_STAGE_ISSUER, audience: API_AUDIENCE, keyId, publicKey },
    issueToken: async ({ userId, expiresIn = 3600, claims = {} }) => {
      const now = Math.floor(Date.now() / 1000);
      const standard = { iss: LOCAL_STAGE_ISSUER, aud: API_AUDIENCE, sub: String(userId) };
      return new SignJWT({
        ...standard,
        iat: now,
        exp: now + expiresIn,
        jti: randomUUID(),
        ...claims,
      })
        .setProtectedHeader({ alg: ALGORITHM, kid: keyId, typ: 'JWT' })
        .sign(privateKey);
    },
  };
}
