import { createServer, type Server } from 'node:http';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { parseKeySet, withNewKey } from '#shared/realtime/realtime-key-set.ts';
import { SecretsManagerKeyStore } from '#shared/realtime/adapters/secrets-manager-key-store.ts';

/**
 * Secrets Manager's JSON protocol, just GetSecretValue and PutSecretValue on one secret: no
 * stand-in ships with the project, and these two calls are all the key store makes.
 */
let server: Server;
let endpoint: string;
const secret = { value: 'a placeholder CloudFormation generated', versions: 1 };
const calls: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const action = String(request.headers['x-amz-target']).replace('secretsmanager.', '');
      calls.push(action);
      const input = JSON.parse(body) as { SecretId: string; SecretString?: string };
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (action === 'PutSecretValue' && input.SecretString !== undefined) {
        secret.value = input.SecretString;
        secret.versions += 1;
      }
      response.end(
        JSON.stringify({
          ARN: input.SecretId,
          Name: 'realtime',
          VersionId: `v${secret.versions}`,
          ...(action === 'GetSecretValue' ? { SecretString: secret.value } : {}),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
});
afterAll(() => {
  server.close();
});

const storeWith = (maxAgeSeconds: number) =>
  new SecretsManagerKeyStore('arn:aws:secretsmanager:us-east-1:1:secret:realtime', {
    maxAgeSeconds,
    client: new SecretsManagerClient({
      endpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    }),
  });

describe('the realtime key set in Secrets Manager', () => {
  it('ensure() replaces the placeholder with a key set, once', async () => {
    const store = storeWith(300);
    const made = await store.ensure();
    expect(made.keys).toHaveLength(1);
    expect(parseKeySet(secret.value)).toEqual(made);
    expect(await storeWith(300).ensure()).toEqual(made);
    expect(secret.versions).toBe(2);
  });

  it('load() reads once per container until maxAge; save() makes the next load read again', async () => {
    const store = storeWith(300);
    calls.length = 0;
    const first = await store.load();
    await store.load();
    expect(calls).toEqual(['GetSecretValue']);
    const rotated = await withNewKey(first, new Date(), {
      activateInSeconds: 900,
      tokenSeconds: 3600,
    });
    await store.save(rotated);
    expect(await store.load()).toEqual(rotated);
    expect(calls).toEqual(['GetSecretValue', 'PutSecretValue', 'GetSecretValue']);
  });

  it('ensure() fails, changing nothing, on JSON that is not a key set: it may be keys', async () => {
    const saved = secret.value;
    secret.value = '{"keys": []}';
    const versions = secret.versions;
    await expect(storeWith(0).ensure()).rejects.toThrow(
      'holds JSON that is not a realtime key set',
    );
    expect([secret.value, secret.versions]).toEqual(['{"keys": []}', versions]);
    secret.value = saved;
  });

  it('load() refuses a secret that holds no key set, rather than sign with nothing', async () => {
    const saved = secret.value;
    secret.value = 'not a key set';
    await expect(storeWith(0).load()).rejects.toThrow('holds no realtime key set');
    secret.value = saved;
  });
});
