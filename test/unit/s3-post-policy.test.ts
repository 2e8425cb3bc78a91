import { createHmac } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { Sha256 } from '@smithy/core/checksum';
import { getSigningKey } from '@smithy/signature-v4';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { S3Error } from '#infra/local/object-store/bucket-store.ts';
import { checkPostForm } from '#infra/local/object-store/s3-post-policy.ts';

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

/** The check of a form of these fields: what it accepts, or its refusal's status, Code, Message. */
async function checked(fields: [string, string][], filename = 'a.bin', bucket = BUCKET) {
  const check = await checkPostForm({ bucket, fields, filename }, expected).catch(
    (error: unknown) => error,
  );
  return check instanceof S3Error
    ? { status: check.status, code: check.code, message: check.message }
    : check;
}
const policyFailed = (message: string) => ({
  status: 403,
  code: 'AccessDenied',
  message: `Invalid according to Policy: ${message}`,
});
const withField = (fields: [string, string][], name: string, value: string) =>
  fields.map(([n, v]): [string, string] => [n, n === name ? value : v]);

describe('checkPostForm: a browser-based upload, as S3 checks it', () => {
  it('takes the form the SDK signed, with its key and size bounds', async () => {
    expect(await checked(await signedForm())).toMatchObject({
      key: 'uploads/7012/5',
      size: { min: 1, max: 100 },
    });
  });

  it('refuses a changed key or metadata field, and a field no condition names', async () => {
    const fields = await signedForm();
    expect(await checked(withField(fields, 'key', 'users/7011/files/4'))).toEqual(
      policyFailed('Policy Condition failed: ["eq", "$key", "uploads/7012/5"]'),
    );
    expect(await checked(withField(fields, 'x-amz-meta-owner', '7011'))).toEqual(
      policyFailed('Policy Condition failed: ["eq", "$x-amz-meta-owner", "7012"]'),
    );
    expect(await checked([...fields, ['x-amz-meta-evil', '1']])).toEqual(
      policyFailed('Extra input fields: x-amz-meta-evil'),
    );
    expect(await checked([...fields, ['x-ignore-tracking', 'yes']])).toHaveProperty('key');
    expect(await checked(fields, 'a.bin', 'another')).toEqual(
      policyFailed(`Policy Condition failed: ["eq", "$bucket", "${BUCKET}"]`),
    );
  });

  it('matches starts-with, ${filename} in the key, and names without regard to case', async () => {
    const fields = await signedForm({
      key: 'uploads/7012/${filename}',
      conditions: [['starts-with', '$Content-Type', 'image/']],
      fields: { 'Content-Type': 'image/png' },
    });
    expect(await checked(fields, 'C:\\photos\\cat.png')).toMatchObject({
      key: 'uploads/7012/cat.png',
    });
    expect(await checked(withField(fields, 'Content-Type', 'text/html'))).toEqual(
      policyFailed('Policy Condition failed: ["starts-with", "$Content-Type", "image/"]'),
    );
  });

  it('refuses no policy, an expired one, a changed one, a wrong secret, another key', async () => {
    expect(await checked([['key', 'users/7011/files/4']])).toEqual({
      status: 403,
      code: 'AccessDenied',
      message: 'AccessDenied',
    });
    expect(await checked(await signedForm({ expires: -1 }))).toEqual(
      policyFailed('Policy expired.'),
    );
    const mismatch = { status: 403, code: 'SignatureDoesNotMatch' };
    expect(await checked(await signedForm({ secret: 'guessed' }))).toMatchObject(mismatch);
    const fields = await signedForm();
    const policy = JSON.parse(
      Buffer.from(fields.find(([n]) => n === 'Policy')?.[1] ?? '', 'base64').toString(),
    ) as { conditions: unknown[] };
    policy.conditions.push(['starts-with', '$key', '']);
    const forged = Buffer.from(JSON.stringify(policy)).toString('base64');
    expect(await checked(withField(fields, 'Policy', forged))).toMatchObject(mismatch);
    expect(await checked(await signedForm({ accessKeyId: 'AKIAOTHER' }))).toMatchObject({
      status: 403,
      code: 'InvalidAccessKeyId',
    });
  });

  it('refuses a signed policy that is no policy document: 400, not our fault', async () => {
    const fields = await signedForm();
    const day = fields.find(([n]) => n === 'X-Amz-Credential')?.[1].split('/')[1] ?? '';
    const key = await getSigningKey(Sha256, LOCAL_CREDENTIALS, day, LOCAL_REGION, 's3');
    const later = new Date(Date.now() + 60_000).toISOString();
    for (const document of [null, { expiration: later, conditions: [null] }]) {
      const policy = Buffer.from(JSON.stringify(document)).toString('base64');
      const signature = createHmac('sha256', key).update(policy).digest('hex');
      const signed = withField(withField(fields, 'Policy', policy), 'X-Amz-Signature', signature);
      expect(await checked(signed)).toEqual({
        status: 400,
        code: 'InvalidPolicyDocument',
        message: 'InvalidPolicyDocument',
      });
    }
  });
});
