import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@smithy/core/checksum';
import { describe, expect, it } from 'vitest';
import { checkSigV4, type ReceivedRequest } from '#infra/local/sigv4-check.ts';

const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const expected = { credentials, region: 'us-east-1', service: 'lambda' };
const AT = new Date('2026-11-24T06:32:48Z');

/** A request signed as the SDK signs it, then received as a server sees it. */
async function signed(
  body = '{"a":1}',
  secret = credentials.secretAccessKey,
  headers: Record<string, string> = {},
): Promise<ReceivedRequest> {
  const signer = new SignatureV4({
    credentials: { ...credentials, secretAccessKey: secret },
    region: 'us-east-1',
    service: 'lambda',
    sha256: Sha256,
  });
  const request = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: 'localhost:9001',
      path: '/2015-03-31/functions/Fixture/invocations',
      query: {},
      headers: { host: 'localhost:9001', 'content-type': 'application/json', ...headers },
      body,
    },
    { signingDate: AT },
  );
  return {
    method: 'POST',
    url: '/2015-03-31/functions/Fixture/invocations',
    headers: request.headers,
    body: Buffer.from(body),
  };
}

describe('checkSigV4: AWS Signature Version 4, as AWS checks it', () => {
  it('takes a request the SDK signed with the stage’s credentials', async () => {
    expect(await checkSigV4(await signed(), { ...expected, now: AT })).toBeUndefined();
  });

  it.each([
    [
      'no signature',
      async () => ({ ...(await signed()), headers: {} }),
      'MissingAuthenticationTokenException',
    ],
    ['another secret', () => signed('{"a":1}', 'guessed'), 'InvalidSignatureException'],
    [
      'a body changed after signing',
      async () => ({ ...(await signed()), body: Buffer.from('{"a":2}') }),
      'InvalidSignatureException',
    ],
    [
      'a garbled header',
      async () => ({ ...(await signed()), headers: { authorization: 'AWS4 x' } }),
      'IncompleteSignatureException',
    ],
  ])('refuses %s: 403 %s', async (_what, request, type) => {
    expect(await checkSigV4(await request(), { ...expected, now: AT })).toMatchObject({
      status: 403,
      type,
    });
  });

  it('refuses a signature more than 15 minutes from now, either way', async () => {
    const request = await signed();
    const minutes = (n: number) => new Date(AT.getTime() + n * 60_000);
    expect(await checkSigV4(request, { ...expected, now: minutes(14) })).toBeUndefined();
    expect(await checkSigV4(request, { ...expected, now: minutes(16) })).toMatchObject({
      type: 'InvalidSignatureException',
    });
    expect(await checkSigV4(request, { ...expected, now: minutes(-16) })).toMatchObject({
      type: 'InvalidSignatureException',
    });
  });

  it('refuses an x-amz-* header added after signing, and takes it signed', async () => {
    const request = await signed();
    const replayed = {
      ...request,
      headers: { ...request.headers, 'x-amz-invocation-type': 'Event' },
    };
    expect(await checkSigV4(replayed, { ...expected, now: AT })).toEqual({
      status: 403,
      type: 'InvalidSignatureException',
      message: 'There were headers present in the request which were not signed',
    });
    const covered = await signed('{"a":1}', credentials.secretAccessKey, {
      'x-amz-invocation-type': 'Event',
    });
    expect(await checkSigV4(covered, { ...expected, now: AT })).toBeUndefined();
  });

  it('judges what the headers alone show before the body is read (body: null)', async () => {
    const unread = { ...(await signed()), body: null };
    const at = { ...expected, now: AT };
    expect(await checkSigV4(unread, at)).toBeUndefined();
    // Another secret: only the signature over the body, checked once it is read, shows it.
    const guessed = { ...(await signed('{"a":1}', 'guessed')), body: null };
    expect(await checkSigV4(guessed, at)).toBeUndefined();
    expect(await checkSigV4({ ...unread, headers: {} }, at)).toEqual({
      status: 403,
      type: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    });
    const otherKey = { ...at, credentials: { ...credentials, accessKeyId: 'AKIDX' } };
    expect(await checkSigV4(unread, otherKey)).toEqual({
      status: 403,
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
    const replayed = { ...unread, headers: { ...unread.headers, 'x-amz-log-type': 'Tail' } };
    expect(await checkSigV4(replayed, at)).toMatchObject({ type: 'InvalidSignatureException' });
  });
});
