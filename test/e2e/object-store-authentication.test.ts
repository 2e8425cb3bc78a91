/**
 * The local object store checks S3's authentication (issue 33, found 1): every request to it
 * is signed with the stage's credentials, a presigned URL, or a signed POST form whose policy
 * holds; anything else is refused with S3's own status and XML error, and stores nothing.
 */
import { Sha256 } from '@smithy/core/checksum';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION, s3ClientOptions } from '#infra/local/stage/stand-ins.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import type { DirectUploadTicket, UserFileBody } from '#test/support/fastapi-bodies.ts';
import { multipartBody, uploadForm } from '#test/support/multipart.ts';
import { eventually } from '#test/support/eventually.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

/** An S3 error as the body says it: status, Code and Message. */
async function s3Error(response: Response) {
  const text = await response.text();
  const element = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    code: element('Code'),
    message: element('Message'),
    text,
  };
}

/** Sends `send`; asserts S3's refusal, and that the stage stored and changed nothing. */
async function expectS3Refusal(
  send: () => Promise<Response>,
  refusal: { status: number; code: string; message?: string },
): Promise<string> {
  const before = await stage().stored();
  const answer = await s3Error(await send());
  expect(answer).toMatchObject({ ...refusal, contentType: 'application/xml' });
  expect(await stage().stored()).toEqual(before);
  return answer.text;
}

const ACCESS_DENIED = { status: 403, code: 'AccessDenied' };
const SIGNATURE_DOES_NOT_MATCH = { status: 403, code: 'SignatureDoesNotMatch' };

async function ticketFor(as: number, filesize = 10): Promise<DirectUploadTicket> {
  const response = await stage().request('/api/v1/user/me/file/upload', {
    method: 'POST',
    as,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as DirectUploadTicket;
}

/** A file recorded through the contract's upload: its id and the bytes its link serves. */
async function recordedFile(as: number, content: string): Promise<UserFileBody> {
  const response = await stage().upload(as, uploadForm(content, { name: 'deck.pdf' }));
  expect(response.status).toBe(201);
  return (await response.json()) as UserFileBody;
}

async function downloaded(as: number, id: number): Promise<string> {
  const redirect = await stage().download(as, id);
  expect(redirect.status).toBe(302);
  return (await fetch(redirect.headers.get('location') ?? '')).text();
}

/** A form as a browser sends it: the fields in order, then the file. */
function postForm(
  url: string,
  fields: readonly (readonly [string, string])[],
  file: Buffer,
  headers: Record<string, string> = {},
) {
  const form = multipartBody([
    ...fields.map(([name, value]) => ({ name, value })),
    { name: 'file', value: file, filename: 'upload.bin' },
  ]);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': form.contentType, ...headers },
    body: form.body,
  });
}

const withField = (ticket: DirectUploadTicket, name: string, value: string) =>
  Object.entries(ticket.fields).map(([n, v]) => [n, n === name ? value : v] as const);

const objectUrl = (key: string) => `${stage().s3Endpoint}/${stage().bucket}/${key}`;

describe('the local object store refuses what S3 refuses (issue 33, found 1)', () => {
  it("refuses a signed form whose key was changed to another user's file", async () => {
    const victim = await recordedFile(7011, 'the real deck');
    const ticket = await ticketFor(7012);
    await expectS3Refusal(
      () =>
        postForm(
          ticket.url,
          withField(ticket, 'key', `users/7011/files/${victim.id}`),
          Buffer.from('the attacker'),
        ),
      {
        status: 403,
        code: 'AccessDenied',
        message: `Invalid according to Policy: Policy Condition failed: ["eq", "$key", "${ticket.key}"]`,
      },
    );
    expect(await downloaded(7011, victim.id)).toBe('the real deck');
  });

  it("refuses a signed form whose key was changed to another user's pending upload", async () => {
    const theirs = await ticketFor(7013);
    const mine = await ticketFor(7014);
    await expectS3Refusal(
      () => postForm(mine.url, withField(mine, 'key', theirs.key), Buffer.from('the attacker')),
      {
        status: 403,
        code: 'AccessDenied',
        message: `Invalid according to Policy: Policy Condition failed: ["eq", "$key", "${mine.key}"]`,
      },
    );
    // Their upload is still waiting for its bytes.
    const complete = await stage().request(`/api/v1/user/me/file/upload/${theirs.id}/complete`, {
      method: 'POST',
      as: 7013,
    });
    expect(complete.status).toBe(409);
    expect(await complete.json()).toEqual({ detail: 'The file has not been uploaded yet' });
  });

  it('refuses a form with only key and file, sent by another web page', async () => {
    const victim = await recordedFile(7015, 'kept');
    await expectS3Refusal(
      () =>
        postForm(
          `${stage().s3Endpoint}/${stage().bucket}`,
          [['key', `users/7015/files/${victim.id}`]],
          Buffer.from('overwritten'),
          { origin: 'https://evil.example' },
        ),
      ACCESS_DENIED,
    );
    expect(await downloaded(7015, victim.id)).toBe('kept');
  });

  it('refuses an unsigned GET of an object, and an unsigned listing', async () => {
    const file = await recordedFile(7016, 'private');
    await expectS3Refusal(() => fetch(objectUrl(`users/7016/files/${file.id}`)), ACCESS_DENIED);
    await expectS3Refusal(
      () => fetch(`${stage().s3Endpoint}/${stage().bucket}?list-type=2`),
      ACCESS_DENIED,
    );
    await expectS3Refusal(() => fetch(`${stage().s3Endpoint}/`), ACCESS_DENIED);
  });

  it('refuses a presigned URL past its expiry, and one whose key was changed', async () => {
    const file = await recordedFile(7017, 'short-lived');
    const key = `users/7017/files/${file.id}`;
    const signedAt = new Date(Date.now() - 120_000);
    const expired = await getSignedUrl(
      stage().s3,
      new GetObjectCommand({ Bucket: stage().bucket, Key: key }),
      { expiresIn: 60, signingDate: signedAt },
    );
    await expectS3Refusal(() => fetch(expired), {
      status: 403,
      code: 'AccessDenied',
    });
    const valid = await getSignedUrl(
      stage().s3,
      new GetObjectCommand({ Bucket: stage().bucket, Key: key }),
      { expiresIn: 60 },
    );
    expect(await (await fetch(valid)).text()).toBe('short-lived');
    const other = await recordedFile(7017, 'another');
    await expectS3Refusal(
      () => fetch(valid.replace(`/files/${file.id}?`, `/files/${other.id}?`)),
      SIGNATURE_DOES_NOT_MATCH,
    );
  });

  it('refuses a signed request that carries an x-amz header its signature leaves out', async () => {
    // A presigned PUT turned into a copy of another user's file by an added header.
    const victim = await recordedFile(7023, 'victim');
    const link = await getSignedUrl(
      stage().s3,
      new PutObjectCommand({ Bucket: stage().bucket, Key: 'users/7024/files/1' }),
      { expiresIn: 60 },
    );
    await expectS3Refusal(
      () =>
        fetch(link, {
          method: 'PUT',
          headers: {
            'x-amz-copy-source': `${stage().bucket}/users/7023/files/${String(victim.id)}`,
          },
        }),
      {
        status: 403,
        code: 'AccessDenied',
      },
    );
  });

  it('refuses a form past its policy’s expiration', async () => {
    const ticket = await ticketFor(7018);
    const { url, fields } = await createPresignedPost(stage().s3, {
      Bucket: stage().bucket,
      Key: ticket.key,
      Fields: { 'x-amz-meta-owner': '7018' },
      Conditions: [{ 'x-amz-meta-owner': '7018' }],
      Expires: -1,
    });
    await expectS3Refusal(() => postForm(url, Object.entries(fields), Buffer.from('late')), {
      status: 403,
      code: 'AccessDenied',
      message: 'Invalid according to Policy: Policy expired.',
    });
  });

  it('refuses a file outside the content-length-range: EntityTooLarge, EntityTooSmall', async () => {
    const ticket = await ticketFor(7019, MAX_UPLOAD_BYTES);
    await expectS3Refusal(
      () =>
        postForm(ticket.url, Object.entries(ticket.fields), Buffer.alloc(MAX_UPLOAD_BYTES + 1, 1)),
      { status: 400, code: 'EntityTooLarge' },
    );
    await expectS3Refusal(
      () => postForm(ticket.url, Object.entries(ticket.fields), Buffer.alloc(0)),
      {
        status: 400,
        code: 'EntityTooSmall',
      },
    );
  });

  it('refuses a file sent as a text field past the content-length-range whole, never cut (issue 41)', async () => {
    // `curl -F 'file=<notes.txt'`: a field, not a file part. Cut at 20 KB, it was taken.
    const key = 'users/7025/files/notes';
    const form = await createPresignedPost(stage().s3, {
      Bucket: stage().bucket,
      Key: key,
      Conditions: [['content-length-range', 1, 25_000]],
      Expires: 60,
    });
    const body = multipartBody([
      ...Object.entries(form.fields).map(([name, value]) => ({ name, value })),
      { name: 'file', value: 'n'.repeat(30_000) },
    ]);
    await expectS3Refusal(
      () =>
        fetch(form.url, {
          method: 'POST',
          headers: { 'content-type': body.contentType },
          body: body.body,
        }),
      { status: 400, code: 'EntityTooLarge' },
    );
    expect(await stage().objectKeys()).not.toContain(key);
  });

  it('refuses a form field the policy does not name, and a changed metadata field', async () => {
    const ticket = await ticketFor(7020);
    await expectS3Refusal(
      () =>
        postForm(
          ticket.url,
          [...Object.entries(ticket.fields), ['x-amz-meta-evil', '1']],
          Buffer.from('x'),
        ),
      {
        status: 403,
        code: 'AccessDenied',
        message: 'Invalid according to Policy: Extra input fields: x-amz-meta-evil',
      },
    );
    await expectS3Refusal(
      () => postForm(ticket.url, withField(ticket, 'x-amz-meta-owner', '7011'), Buffer.from('x')),
      {
        status: 403,
        code: 'AccessDenied',
        message:
          'Invalid according to Policy: Policy Condition failed: ["eq", "$x-amz-meta-owner", "7020"]',
      },
    );
  });

  it('refuses fields over 20 KB before the file, and a form with no file', async () => {
    const ticket = await ticketFor(7024);
    await expectS3Refusal(
      () =>
        postForm(
          ticket.url,
          [['x-ignore-padding', 'p'.repeat(21 * 1024)], ...Object.entries(ticket.fields)],
          Buffer.from('x'),
        ),
      {
        status: 400,
        code: 'MaxPostPreDataLengthExceeded',
      },
    );
    const noFile = multipartBody(
      Object.entries(ticket.fields).map(([name, value]) => ({ name, value })),
    );
    await expectS3Refusal(
      () =>
        fetch(ticket.url, {
          method: 'POST',
          headers: { 'content-type': noFile.contentType },
          body: noFile.body,
        }),
      {
        status: 400,
        code: 'IncorrectNumberOfFilesInPostRequest',
      },
    );
  });

  it('refuses s3rver’s well-known secret and an unknown access key, from the SDK and in a form', async () => {
    const file = await recordedFile(7021, 'secret');
    const key = `users/7021/files/${file.id}`;
    const client = (accessKeyId: string, secretAccessKey: string) =>
      new S3Client({
        ...s3ClientOptions(stage().s3Endpoint),
        region: LOCAL_REGION,
        credentials: { accessKeyId, secretAccessKey },
        maxAttempts: 1,
      });
    // What a web page could sign with: the S3RVER pair every s3rver user knows. The stage's
    // secret is its own, random (credentials.json in its data folder).
    const guessed = client(LOCAL_CREDENTIALS.accessKeyId, LOCAL_CREDENTIALS.secretAccessKey);
    const stranger = client('AKIASTRANGER', stage().s3Credentials.secretAccessKey);
    try {
      const before = await stage().stored();
      await expect(
        guessed.send(new GetObjectCommand({ Bucket: stage().bucket, Key: key })),
      ).rejects.toMatchObject({
        name: 'SignatureDoesNotMatch',
        $metadata: { httpStatusCode: 403 },
      });
      await expect(
        guessed.send(new PutObjectCommand({ Bucket: stage().bucket, Key: key, Body: 'x' })),
      ).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
      await expect(
        stranger.send(new ListObjectsV2Command({ Bucket: stage().bucket })),
      ).rejects.toMatchObject({
        name: 'InvalidAccessKeyId',
        $metadata: { httpStatusCode: 403 },
      });
      expect(await stage().stored()).toEqual(before);
      const forged = await createPresignedPost(guessed, {
        Bucket: stage().bucket,
        Key: key,
        Expires: 60,
      });
      await expectS3Refusal(
        () => postForm(forged.url, Object.entries(forged.fields), Buffer.from('forged')),
        SIGNATURE_DOES_NOT_MATCH,
      );
    } finally {
      guessed.destroy();
      stranger.destroy();
    }
    expect(await downloaded(7021, file.id)).toBe('secret');
  });

  it('refuses a body other than the one signed: XAmzContentSHA256Mismatch', async () => {
    const key = 'users/7022/files/1';
    const url = new URL(objectUrl(key));
    const signed = await new SignatureV4({
      credentials: stage().s3Credentials,
      region: LOCAL_REGION,
      service: 's3',
      sha256: Sha256,
      uriEscapePath: false,
    }).sign({
      method: 'PUT',
      protocol: 'http:',
      hostname: url.host,
      path: url.pathname,
      query: {},
      headers: { host: url.host },
      body: 'signed bytes',
    });
    const claimed = createHash('sha256').update('signed bytes').digest('hex');
    expect(signed.headers['x-amz-content-sha256']).toBe(claimed);
    await expectS3Refusal(
      () =>
        fetch(url, {
          method: 'PUT',
          headers: { ...signed.headers, host: url.host },
          body: 'other bytes!',
        }),
      {
        status: 400,
        code: 'XAmzContentSHA256Mismatch',
      },
    );
    expect(await stage().objectKeys()).not.toContain(key);
  });

  it('answers an over-size refusal a client still sending can read (the body is read on)', async () => {
    const ticket = await ticketFor(7023, 1);
    const form = multipartBody([
      ...Object.entries(ticket.fields).map(([name, value]) => ({ name, value })),
      { name: 'file', value: Buffer.alloc(MAX_UPLOAD_BYTES + 1024 * 1024, 2), filename: 'big' },
    ]);
    // node:http writes the whole body before it reads: a server that stops reading breaks it.
    const status = await new Promise<number>((resolve, reject) => {
      const post = httpRequest(ticket.url, {
        method: 'POST',
        headers: { 'content-type': form.contentType, 'content-length': form.body.length },
      });
      post.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
      post.on('error', reject);
      post.end(form.body);
    });
    expect(status).toBe(400);
  });
});

describe('the local object store still serves what S3 serves', () => {
  it('takes the SDK’s signed calls, presigned links and the service’s own forms', async () => {
    const key = 'users/7030/files/1';
    await stage().s3.send(new PutObjectCommand({ Bucket: stage().bucket, Key: key, Body: 'sdk' }));
    // Readable once the malware scan has tagged it clean, as the bucket's policy has it.
    const got = await eventually(() =>
      stage()
        .s3.send(new GetObjectCommand({ Bucket: stage().bucket, Key: key }))
        .catch((error: unknown) => {
          if ((error as { name?: string }).name === 'AccessDenied') return undefined;
          throw error;
        }),
    );
    expect(await got.Body?.transformToString()).toBe('sdk');
    const link = await getSignedUrl(
      stage().s3,
      new GetObjectCommand({ Bucket: stage().bucket, Key: key }),
    );
    expect(await (await fetch(link)).text()).toBe('sdk');

    const ticket = await ticketFor(7031, 5);
    const posted = await postForm(ticket.url, Object.entries(ticket.fields), Buffer.from('bytes'));
    expect(posted.status).toBe(204);
    const file = await eventually(async () => {
      const listed = await stage().request('/api/v1/user/me/file', { as: 7031 });
      return ((await listed.json()) as UserFileBody[]).find((f) => f.id === ticket.id);
    });
    expect(file.filesize).toBe(5);
    expect(await downloaded(7031, ticket.id)).toBe('bytes');
  });

  it('answers a CORS preflight with no signature, as S3 does', async () => {
    const preflight = await fetch(`${stage().s3Endpoint}/${stage().bucket}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
      },
    });
    // The stage gives the bucket the data stack's CORS rules: an allowed origin's form POST.
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
  });

  it("lets an allowed page read the form's ETag and Location, as Uppy's S3 uploader asks", async () => {
    const ticket = await ticketFor(7032, 5);
    const posted = await postForm(ticket.url, Object.entries(ticket.fields), Buffer.from('bytes'), {
      origin: 'http://localhost:3000',
    });
    expect(posted.status).toBe(204);
    expect(posted.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(posted.headers.get('access-control-expose-headers')).toBe('ETag, Location');
    // The MD5 of the bytes, and the object's own URL: the bucket's, then the form's key.
    expect(posted.headers.get('etag')).toBe('"4b3a6218bb3e3a7303e8a171a60fcf92"');
    expect(posted.headers.get('location')).toBe(`${ticket.url}/${ticket.key}`);
  });
});
