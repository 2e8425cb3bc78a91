import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/emulators.ts';
import {
  checkFileSize,
  checkPostForm,
  type PostForm,
} from '#infra/local/object-store/s3-post-policy.ts';

const BUCKET = 'the-bucket';
const expected = { credentials: LOCAL_CREDENTIALS, region: LOCAL_REGION };

/** A form as the SDK signs it (the service's signer calls the same function). */
async function signedForm(
  options: {
    key?: string;
    conditions?: Parameters<typeof createPresignedPost>[1]['Conditions'];
    fields?: Record<string, string>;
    expires?: number;
    secret?: string;
    accessKeyId?: string;
  } = {},
): Promise<[string, string][]> {
  const client = new S3Client({
    region: LOCAL_REGION,
    endpoint: 'http://127.0.0.1:1',
    forcePathStyle: true,
    credentials: {
      accessKeyId: options.accessKeyId ?? LOCAL_CREDENTIALS.accessKeyId,
      secretAccessKey: options.secret ?? LOCAL_CREDENTIALS.secretAccessKey,
    },
  });
  const fields = options.fields ?? { 'x-amz-meta-owner': '7012' };
  const { fields: signed } = await createPresignedPost(client, {
    Bucket: BUCKET,
    Key: options.key ?? 'uploads/7012/5',
    Fields: fields,
    Conditions: options.conditions ?? [
      ['content-length-range', 1, 100],
      ...Object.entries(fields).map(([name, value]) => ({ [name]: value })),
    ],
    Expires: options.expires ?? 60,
  });
  return Object.entries(signed);
}

const form = (fields: [string, string][], filename = 'a.bin'): PostForm => ({
  bucket: BUCKET,
  fields,
  filename,
});
const withField = (fields: [string, string][], name: string, value: string) =>
  fields.map(([n, v]): [string, string] => [n, n === name ? value : v]);

describe('checkPostForm: a browser-based upload, as S3 checks it', () => {
  it('takes the form the SDK signed, with its key and size bounds', async () => {
    const check = await checkPostForm(form(await signedForm()), expected);
    expect(check).toMatchObject({
      accepted: { key: 'uploads/7012/5', size: { min: 1, max: 100 } },
    });
  });

  it('refuses a changed key: the condition it fails, quoted as S3 quotes it', async () => {
    const fields = withField(await signedForm(), 'key', 'users/7011/files/4');
    expect(await checkPostForm(form(fields), expected)).toEqual({
      refused: {
        status: 403,
        code: 'AccessDenied',
        message:
          'Invalid according to Policy: Policy Condition failed: ["eq", "$key", "uploads/7012/5"]',
      },
    });
  });

  it('refuses a changed metadata field, and a field no condition names', async () => {
    const changed = withField(await signedForm(), 'x-amz-meta-owner', '7011');
    expect(await checkPostForm(form(changed), expected)).toMatchObject({
      refused: {
        message:
          'Invalid according to Policy: Policy Condition failed: ["eq", "$x-amz-meta-owner", "7012"]',
      },
    });
    const extra = [...(await signedForm()), ['x-amz-meta-evil', '1'] as [string, string]];
    expect(await checkPostForm(form(extra), expected)).toEqual({
      refused: {
        status: 403,
        code: 'AccessDenied',
        message: 'Invalid according to Policy: Extra input fields: x-amz-meta-evil',
      },
    });
  });

  it('exempts x-amz-signature, policy, file and x-ignore-* fields from the conditions', async () => {
    const fields = [...(await signedForm()), ['x-ignore-tracking', 'yes'] as [string, string]];
    expect(await checkPostForm(form(fields), expected)).toHaveProperty('accepted');
  });

  it('matches starts-with, ${filename} in the key, and names without regard to case', async () => {
    const fields = await signedForm({
      key: 'uploads/7012/${filename}',
      conditions: [['starts-with', '$Content-Type', 'image/']],
      fields: { 'Content-Type': 'image/png' },
    });
    const check = await checkPostForm(form(fields, 'C:\\photos\\cat.png'), expected);
    expect(check).toMatchObject({ accepted: { key: 'uploads/7012/cat.png' } });
    const other = withField(fields, 'Content-Type', 'text/html');
    expect(await checkPostForm(form(other), expected)).toMatchObject({
      refused: {
        message:
          'Invalid according to Policy: Policy Condition failed: ["starts-with", "$Content-Type", "image/"]',
      },
    });
  });

  it('holds the bucket condition to the bucket the form is posted to', async () => {
    const fields = await signedForm();
    expect(await checkPostForm({ ...form(fields), bucket: 'another' }, expected)).toMatchObject({
      refused: {
        message: `Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "${BUCKET}"]`,
      },
    });
  });

  it('refuses a form with no policy as an anonymous request to a private bucket', async () => {
    const fields: [string, string][] = [['key', 'users/7011/files/4']];
    expect(await checkPostForm(form(fields), expected)).toEqual({
      refused: { status: 403, code: 'AccessDenied', message: 'Access Denied' },
    });
  });

  it('refuses an expired policy, a wrong secret and an unknown access key', async () => {
    expect(await checkPostForm(form(await signedForm({ expires: -1 })), expected)).toEqual({
      refused: {
        status: 403,
        code: 'AccessDenied',
        message: 'Invalid according to Policy: Policy expired.',
      },
    });
    expect(
      await checkPostForm(form(await signedForm({ secret: 'guessed' })), expected),
    ).toMatchObject({ refused: { status: 403, code: 'SignatureDoesNotMatch' } });
    expect(
      await checkPostForm(form(await signedForm({ accessKeyId: 'AKIAOTHER' })), expected),
    ).toMatchObject({
      refused: {
        status: 403,
        code: 'InvalidAccessKeyId',
        message: 'The AWS Access Key Id you provided does not exist in our records.',
        details: { AWSAccessKeyId: 'AKIAOTHER' },
      },
    });
  });

  it('refuses a policy changed after signing', async () => {
    const fields = await signedForm();
    const policy = JSON.parse(
      Buffer.from(fields.find(([n]) => n === 'Policy')?.[1] ?? '', 'base64').toString(),
    ) as { conditions: unknown[] };
    policy.conditions.push(['starts-with', '$key', '']);
    const forged = withField(
      fields,
      'Policy',
      Buffer.from(JSON.stringify(policy)).toString('base64'),
    );
    expect(await checkPostForm(form(forged), expected)).toMatchObject({
      refused: { status: 403, code: 'SignatureDoesNotMatch' },
    });
  });
});

describe('checkFileSize: content-length-range', () => {
  it('answers EntityTooLarge and EntityTooSmall with the sizes', () => {
    const size = { min: 1, max: 100 };
    expect(checkFileSize(100, size)).toBeUndefined();
    expect(checkFileSize(101, size)).toEqual({
      status: 400,
      code: 'EntityTooLarge',
      message: 'Your proposed upload exceeds the maximum allowed size',
      details: { ProposedSize: 101, MaxSizeAllowed: 100 },
    });
    expect(checkFileSize(0, size)).toEqual({
      status: 400,
      code: 'EntityTooSmall',
      message: 'Your proposed upload is smaller than the minimum allowed size',
      details: { ProposedSize: 0, MinSizeAllowed: 1 },
    });
    expect(checkFileSize(10 ** 9, undefined)).toBeUndefined();
  });
});
