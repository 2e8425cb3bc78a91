import { createHmac } from 'node:crypto';
import { Sha256 } from '@smithy/core/checksum';
import { getSigningKey } from '@smithy/signature-v4';
import { type Credentials, sameSignature } from '../sigv4-check.ts';
import { S3Error } from './bucket-store.ts';

/**
 * A browser's POST form checked as S3 checks it, before a byte of its file:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
 */
export interface AcceptedForm {
  readonly key: string;
  /** The fields to store the object with, `${filename}` expanded. */
  readonly fields: readonly (readonly [string, string])[];
  /** From `content-length-range`, checked once the file is counted. */
  readonly size?: { readonly min: number; readonly max: number };
}

const policyFailed = (why: string) =>
  new S3Error('AccessDenied', `Invalid according to Policy: ${why}`);
const invalidPolicy = () => new S3Error('InvalidPolicyDocument');

export async function checkPostForm(
  form: {
    readonly bucket: string;
    readonly fields: readonly (readonly [string, string])[];
    readonly filename: string;
  },
  expected: { readonly credentials: Credentials; readonly region: string; readonly now?: Date },
): Promise<AcceptedForm | S3Error> {
  const values = new Map<string, string>();
  for (const [name, value] of form.fields) {
    const seen = values.get(name.toLowerCase());
    values.set(name.toLowerCase(), seen === undefined ? value : `${seen},${value}`);
  }
  const policy = values.get('policy');
  if (policy === undefined) return new S3Error('AccessDenied');
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/.exec(
    values.get('x-amz-credential') ?? '',
  );
  const { credentials, region } = expected;
  if (credential?.[1] !== credentials.accessKeyId) return new S3Error('InvalidAccessKeyId');
  const key = await getSigningKey(Sha256, credentials, credential[2] ?? '', region, 's3');
  const ours = createHmac('sha256', key).update(policy).digest('hex');
  if (
    credential[3] !== region ||
    values.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256' ||
    !sameSignature(ours, values.get('x-amz-signature') ?? '')
  ) {
    return new S3Error('SignatureDoesNotMatch');
  }
  let document: { expiration?: unknown; conditions?: unknown };
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as typeof document;
  } catch {
    return invalidPolicy();
  }
  const expires = new Date(String(document.expiration));
  if (Number.isNaN(expires.getTime()) || !Array.isArray(document.conditions)) {
    return invalidPolicy();
  }
  if ((expected.now ?? new Date()) > expires) return policyFailed('Policy expired.');
  const filename = form.filename.split(/[/\\]/).at(-1) ?? '';
  const objectKey = values.get('key')?.replaceAll('${filename}', filename);
  if (objectKey === undefined) return new S3Error('InvalidArgument');
  const subject = (field: string) =>
    field === 'bucket' ? form.bucket : field === 'key' ? objectKey : (values.get(field) ?? '');
  const covered = new Set<string>();
  let size: { min: number; max: number } | undefined;
  for (const condition of document.conditions as unknown[]) {
    const [operator, name, value] = Array.isArray(condition)
      ? (condition as unknown[])
      : Object.entries(condition as object).flatMap(([n, v]) => ['eq', `$${n}`, v as unknown]);
    const op = String(operator).toLowerCase();
    if (op === 'content-length-range') {
      const [min, max] = [Number(name), Number(value)];
      if (!(min >= 0 && max >= min)) return invalidPolicy();
      size = { min: Math.max(size?.min ?? 0, min), max: Math.min(size?.max ?? max, max) };
      continue;
    }
    if (!['eq', 'starts-with'].includes(op) || typeof name !== 'string' || !name.startsWith('$')) {
      return invalidPolicy();
    }
    const field = name.slice(1).toLowerCase();
    covered.add(field);
    const actual = subject(field);
    if (op === 'eq' ? actual !== String(value) : !actual.startsWith(String(value))) {
      return policyFailed(
        `Policy Condition failed: [${[operator, name, value].map((item) => JSON.stringify(item)).join(', ')}]`,
      );
    }
  }
  const exempt = ['x-amz-signature', 'file', 'policy'];
  const extra = [...values.keys()].filter(
    (name) => !exempt.includes(name) && !name.startsWith('x-ignore-') && !covered.has(name),
  );
  if (extra.length > 0) return policyFailed(`Extra input fields: ${extra.join(', ')}`);
  const fields = form.fields.map(
    ([n, v]) => [n, n.toLowerCase() === 'key' ? objectKey : v] as const,
  );
  return { key: objectKey, fields, ...(size === undefined ? {} : { size }) };
}
