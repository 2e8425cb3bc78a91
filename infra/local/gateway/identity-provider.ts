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

const readJwk = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as JWK;

/**
 * A new key pair at `path`. Written whole to a temporary file, then linked into place: when
 * two processes race on a fresh folder, one key wins and nobody reads half a file.
 */
async function createPrivateJwk(path: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: ALGORITHM, use: 'sig' };
  await createOnce(path, JSON.stringify(jwk, null, 2));
  return readJwk(path);
}

/**
 * The provider whose RS256 key pair lives under the data folder; where there is none, the stage
 * makes it, while the token CLI's `keyAbsent` refuses (no running stage would know its key).
 */
export async function loadIdentityProvider(
  dataDir: string,
  keyAbsent = createPrivateJwk,
): Promise<LocalIdentityProvider> {
  const path = join(dataDir, 'idp', 'signing-key.json');
  const privateJwk = (await readJwk(path).catch(unless('ENOENT'))) ?? (await keyAbsent(path));
  const keyId = privateJwk.kid ?? 'local';
  const privateKey = (await importJWK(privateJwk, ALGORITHM)) as CryptoKey;
  const { kty, n, e } = privateJwk;
  const publicKey = (await importJWK({ kty, n, e }, ALGORITHM)) as CryptoKey;
  return {
    ...{ issuer: LOCAL_STAGE_ISSUER, audience: API_AUDIENCE, keyId, publicKey },
    issueToken: async ({ userId, expiresIn = 3600, claims = {} }) => {
      const now = Math.floor(Date.now() / 1000);
      const standard = { iss: LOCAL_STAGE_ISSUER, aud: API_AUDIENCE, sub: String(userId) };
      const timed = { iat: now, exp: now + expiresIn, jti: randomUUID() };
      return new SignJWT({ ...standard, ...timed, ...claims })
        .setProtectedHeader({ alg: ALGORITHM, kid: keyId, typ: 'JWT' })
        .sign(privateKey);
    },
  };
}
