import { createHmac } from 'node:crypto';
import { Sha256 } from '@smithy/core/checksum';
import { getSigningKey } from '@smithy/signature-v4';
import * as z from 'zod';
import { type Credentials, sameSignature } from '../sigv4-check.ts';
import { S3Error } from './bucket-store.ts';

type Fields = readonly (readonly [string, string])[];

/**
 * A browser's POST form checked as S3 checks it, before a byte of its file:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
 */
export interface AcceptedForm {
  readonly key: string;
  /** The fields to store the object with, `${filename}` expanded. */
  readonly fields: Fields;
  /** From `content-length-range`, checked once the file is counted. */
  readonly size?: { readonly min: number; readonly max: number };
}

/** The policy: when it expires, and its conditions, each a list or `{ "<field>": value }`. */
const POLICY = z.object({
  expiration: z.string().pipe(z.coerce.date()),
  conditions: z.array(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())])),
});
type Policy = z.infer<typeof POLICY>;

const policyFailed = (why: string) =>
  new S3Error('AccessDenied', `Invalid according to Policy: ${why}`);

/** The form, accepted; else throws the S3Error S3 answers it with. */
export async function checkPostForm(
  form: { readonly bucket: string; readonly fields: Fields; readonly filename: string },
  expected: { readonly credentials: Credentials; readonly region: string; readonly now?: Date },
): Promise<AcceptedForm> {
  // By lower-case name, a repeated field's values joined by commas.
  const values = new Map<string, string>();
  for (const [name, value] of form.fields) {
    const seen = values.get(name.toLowerCase());
    values.set(name.toLowerCase(), seen === undefined ? value : `${seen},${value}`);
  }
  const conditions = await signedConditions(values, expected);
  const filename = form.filename.split(/[/\\]/).at(-1) ?? '';
  const key = values.get('key')?.replaceAll('${filename}', filename);
  if (key === undefined) throw new S3Error('InvalidArgument');
  const subject = (field: string) =>
    field === 'bucket' ? form.bucket : field === 'key' ? key : (values.get(field) ?? '');
  const { covered, size } = heldToConditions(conditions, subject);
  const exempt = ['x-amz-signature', 'file', 'policy'];
  const extra = [...values.keys()].filter(
    (name) => !exempt.includes(name) && !name.startsWith('x-ignore-') && !covered.has(name),
  );
  if (extra.length > 0) throw policyFailed(`Extra input fields: ${extra.join(', ')}`);
  const fields = form.fields.map(([n, v]) => [n, n.toLowerCase() === 'key' ? key : v] as const);
  return { key, fields, ...(size === undefined ? {} : { size }) };
}

/** The policy's conditions, once its signature by the stage's key and its expiry hold. */
async function signedConditions(
  values: ReadonlyMap<string, string>,
  { credentials, region, now = new Date() }: Parameters<typeof checkPostForm>[1],
) {
  const policy = values.get('policy');
  if (policy === undefined) throw new S3Error('AccessDenied');
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request$/;
  const [, keyId, day = '', scope] = credential.exec(values.get('x-amz-credential') ?? '') ?? [];
  if (keyId !== credentials.accessKeyId) throw new S3Error('InvalidAccessKeyId');
  const signingKey = await getSigningKey(Sha256, credentials, day, region, 's3');
  const ours = createHmac('sha256', signingKey).update(policy).digest('hex');
  const signed =
    scope === region &&
    values.get('x-amz-algorithm') === 'AWS4-HMAC-SHA256' &&
    sameSignature(ours, values.get('x-amz-signature') ?? '');
  if (!signed) throw new S3Error('SignatureDoesNotMatch');
  let document: Policy;
  try {
    document = POLICY.parse(JSON.parse(Buffer.from(policy, 'base64').toString('utf8')));
  } catch {
    throw new S3Error('InvalidPolicyDocument');
  }
  if (now > document.expiration) throw policyFailed('Policy expired.');
  return document.conditions;
}

/** The fields the conditions name, each held to its condition, and the size range they set. */
function heldToConditions(conditions: Policy['conditions'], subject: (field: string) => string) {
  const covered = new Set<string>();
  let size: { min: number; max: number } | undefined;
  for (const condition of conditions) {
    const [operator, name, value] = Array.isArray(condition)
      ? condition
      : Object.entries(condition).flatMap(([n, v]) => ['eq', `$${n}`, v]);
    const op = String(operator).toLowerCase();
    if (op === 'content-length-range') {
      const [min, max] = [Number(name), Number(value)];
      if (!(min >= 0 && max >= min)) throw new S3Error('InvalidPolicyDocument');
      size = { min: Math.max(size?.min ?? 0, min), max: Math.min(size?.max ?? max, max) };
      continue;
    }
    if (!['eq', 'starts-with'].includes(op) || typeof name !== 'string' || !name.startsWith('$')) {
      throw new S3Error('InvalidPolicyDocument');
    }
    const field = name.slice(1).toLowerCase();
    covered.add(field);
    const actual = subject(field);
    if (op === 'eq' ? actual !== String(value) : !actual.startsWith(String(value))) {
      const stated = [operator, name, value].map((item) => JSON.stringify(item)).join(', ');
      throw policyFailed(`Policy Condition failed: [${stated}]`);
    }
  }
  return { covered, size };
}
