import { createHmac } from 'node:crypto';
import { getSigningKey } from '@smithy/signature-v4';
import {
  accessDenied,
  entityTooLarge,
  entityTooSmall,
  invalidAccessKeyId,
  invalidAccordingToPolicy,
  invalidArgument,
  invalidPolicyDocument,
  type S3Error,
  signatureDoesNotMatch,
} from './s3-errors.ts';
import { parseCredential } from './s3-request-auth.ts';
import { type Credentials, sameSignature, Sha256 } from '../sigv4-check.ts';

/**
 * A browser-based upload (an HTML form POSTed to the bucket) checked as S3 checks it
 * ("Browser-Based Uploads Using POST (AWS Signature Version 4)",
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-UsingHTTPPOST.html;
 * "Authenticating Requests in Browser-Based Uploads Using POST",
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-authentication-HTTPPOST.html;
 * "Creating a POST Policy", https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html):
 * - a form with no policy is anonymous, and the bucket is private: `AccessDenied`;
 * - the signature is HMAC-SHA256 of the base64 policy, with the signing key of the
 *   `x-amz-credential` scope: another is `SignatureDoesNotMatch`;
 * - past the policy's `expiration`: "Invalid according to Policy: Policy expired.";
 * - every condition must hold (`{"name": value}` and `["eq", "$name", value]` exactly,
 *   `["starts-with", "$name", prefix]`, `bucket` against the bucket posted to), else "Policy
 *   Condition failed: <the condition>";
 * - every form field but `x-amz-signature`, `file`, `policy` and `x-ignore-*` must be named by
 *   a condition, else "Extra input fields: <name>";
 * - `["content-length-range", min, max]` bounds the file: `EntityTooSmall`/`EntityTooLarge`.
 * Field names are matched without regard to case, as S3 matches them (a condition on
 * `$x-amz-date` holds the SDK's `X-Amz-Date` field), and a field given twice is its values
 * joined by commas. `${filename}` in the key is the file's name. Fields after the file are not
 * part of the form: S3 ignores them ("HTML Form Fields": the file "must be the last field").
 */

/** A form as read up to its file: the fields in order, names as sent. */
export interface PostForm {
  readonly bucket: string;
  readonly fields: readonly (readonly [string, string])[];
  /** The file part's name (its last path segment is `${filename}`). */
  readonly filename: string;
}

/** A form S3 would take, and what remains to check once its file has been counted. */
export interface AcceptedForm {
  readonly key: string;
  /** The fields to store the object with, `${filename}` expanded. */
  readonly fields: readonly (readonly [string, string])[];
  /** The file's allowed size, from `content-length-range`, when the policy gives one. */
  readonly size?: { readonly min: number; readonly max: number };
}

export type PostFormCheck = { readonly accepted: AcceptedForm } | { readonly refused: S3Error };

const refused = (error: S3Error): PostFormCheck => ({ refused: error });

/** Fields S3 does not require a condition for. */
const exempt = (name: string) =>
  name === 'x-amz-signature' ||
  name === 'file' ||
  name === 'policy' ||
  name.startsWith('x-ignore-');

const missingField = (name: string) =>
  invalidArgument(
    `Bucket POST must contain a field named '${name}'.  If it is specified, please check the order of the fields.`,
    { name, value: '' },
  );

type Condition =
  | {
      readonly kind: 'match';
      readonly operator: 'eq' | 'starts-with';
      readonly field: string;
      readonly value: string;
      readonly shown: string;
    }
  | { readonly kind: 'size'; readonly min: number; readonly max: number };

/** A condition as S3 quotes it: `["eq", "$key", "user/eric/1"]`. */
const quote = (items: readonly unknown[]) =>
  `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;

function parseConditions(conditions: unknown): Condition[] | S3Error {
  if (!Array.isArray(conditions)) {
    return invalidPolicyDocument("Invalid 'conditions' value: must be a List.");
  }
  const parsed: Condition[] = [];
  for (const condition of conditions as unknown[]) {
    if (Array.isArray(condition)) {
      const [operator, first, second] = condition as unknown[];
      const op = typeof operator === 'string' ? operator.toLowerCase() : '';
      if (op === 'content-length-range' && condition.length === 3) {
        const min = Number(first);
        const max = Number(second);
        if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || max < min) {
          return invalidPolicyDocument(`Invalid content-length-range: ${quote(condition)}`);
        }
        parsed.push({ kind: 'size', min, max });
        continue;
      }
      if (
        (op === 'eq' || op === 'starts-with') &&
        condition.length === 3 &&
        typeof first === 'string' &&
        first.startsWith('$') &&
        (typeof second === 'string' || typeof second === 'number')
      ) {
        parsed.push({
          kind: 'match',
          operator: op,
          field: first.slice(1).toLowerCase(),
          value: String(second),
          shown: quote(condition),
        });
        continue;
      }
      return invalidPolicyDocument(`Invalid Condition: ${quote(condition)}`);
    }
    if (typeof condition === 'object' && condition !== null) {
      for (const [name, value] of Object.entries(condition as Record<string, unknown>)) {
        if (typeof value !== 'string' && typeof value !== 'number') {
          return invalidPolicyDocument(`Invalid Simple-Condition: ${JSON.stringify(condition)}`);
        }
        parsed.push({
          kind: 'match',
          operator: 'eq',
          field: name.toLowerCase(),
          value: String(value),
          shown: quote(['eq', `$${name}`, String(value)]),
        });
      }
      continue;
    }
    return invalidPolicyDocument(`Invalid Condition: ${JSON.stringify(condition)}`);
  }
  return parsed;
}

function decodePolicy(policy: string): { expiration: Date; conditions: Condition[] } | S3Error {
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
  } catch {
    return invalidPolicyDocument('Invalid JSON.');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return invalidPolicyDocument('Invalid JSON.');
  }
  const { expiration, conditions } = document as { expiration?: unknown; conditions?: unknown };
  const expires = typeof expiration === 'string' ? new Date(expiration) : undefined;
  if (expires === undefined || Number.isNaN(expires.getTime())) {
    return invalidPolicyDocument(`Invalid 'expiration' value: '${String(expiration)}'`);
  }
  const parsed = parseConditions(conditions);
  return Array.isArray(parsed) ? { expiration: expires, conditions: parsed } : parsed;
}

const isError = (value: unknown): value is S3Error =>
  typeof value === 'object' && value !== null && 'code' in value && 'status' in value;

/** The policy's signature, as S3 computes it for the credential's day and the stage's region. */
async function policySignature(
  policy: string,
  credentials: Credentials,
  day: string,
  region: string,
): Promise<string> {
  const key = await getSigningKey(Sha256, credentials, day, region, 's3');
  return createHmac('sha256', key).update(policy).digest('hex');
}

/** Checks a form, read up to its file, as S3 does before it takes a byte of the file. */
export async function checkPostForm(
  form: PostForm,
  expected: { readonly credentials: Credentials; readonly region: string; readonly now?: Date },
): Promise<PostFormCheck> {
  const values = new Map<string, string>();
  for (const [name, value] of form.fields) {
    const lower = name.toLowerCase();
    const seen = values.get(lower);
    values.set(lower, seen === undefined ? value : `${seen},${value}`);
  }
  const policy = values.get('policy');
  const provided = values.get('x-amz-signature');
  if (policy === undefined && provided === undefined) return refused(accessDenied());
  if (policy === undefined) return refused(missingField('Policy'));
  for (const name of ['X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Date', 'X-Amz-Signature']) {
    if (!values.has(name.toLowerCase())) return refused(missingField(name));
  }
  if (values.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') {
    return refused(
      invalidArgument('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"', {
        name: 'X-Amz-Algorithm',
        value: values.get('x-amz-algorithm') ?? '',
      }),
    );
  }
  const credential = parseCredential(values.get('x-amz-credential') ?? '');
  if (credential === undefined) {
    return refused(
      invalidArgument(
        'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
        { name: 'X-Amz-Credential', value: values.get('x-amz-credential') ?? '' },
      ),
    );
  }
  if (credential.accessKeyId !== expected.credentials.accessKeyId) {
    return refused(invalidAccessKeyId(credential.accessKeyId));
  }
  const ours = await policySignature(policy, expected.credentials, credential.day, expected.region);
  if (
    credential.region !== expected.region ||
    credential.service !== 's3' ||
    !sameSignature(ours, provided ?? '')
  ) {
    return refused(
      signatureDoesNotMatch({
        accessKeyId: credential.accessKeyId,
        provided: provided ?? '',
        stringToSign: policy,
      }),
    );
  }
  const decoded = decodePolicy(policy);
  if (isError(decoded)) return refused(decoded);
  const now = expected.now ?? new Date();
  if (now.getTime() > decoded.expiration.getTime()) {
    return refused(invalidAccordingToPolicy('Policy expired.'));
  }
  const rawKey = values.get('key');
  if (rawKey === undefined) return refused(missingField('key'));
  const filename = form.filename.split(/[/\\]/).at(-1) ?? '';
  const key = rawKey.replaceAll('${filename}', filename);
  // Conditions are matched against the form as S3 expands it; `bucket` is where it is posted.
  const subject = (field: string) =>
    field === 'bucket' ? form.bucket : field === 'key' ? key : (values.get(field) ?? '');
  const covered = new Set<string>();
  let size: { min: number; max: number } | undefined;
  for (const condition of decoded.conditions) {
    if (condition.kind === 'size') {
      size = {
        min: Math.max(size?.min ?? 0, condition.min),
        max: Math.min(size?.max ?? Number.MAX_SAFE_INTEGER, condition.max),
      };
      continue;
    }
    covered.add(condition.field);
    const actual = subject(condition.field);
    const holds =
      condition.operator === 'eq' ? actual === condition.value : actual.startsWith(condition.value);
    if (!holds) {
      return refused(invalidAccordingToPolicy(`Policy Condition failed: ${condition.shown}`));
    }
  }
  const extra = [
    ...new Set(
      form.fields
        .map(([name]) => name)
        .filter((name) => {
          const lower = name.toLowerCase();
          return !exempt(lower) && !covered.has(lower);
        }),
    ),
  ];
  if (extra.length > 0) {
    return refused(invalidAccordingToPolicy(`Extra input fields: ${extra.join(', ')}`));
  }
  return {
    accepted: {
      key,
      fields: form.fields.map(([name, value]) =>
        name.toLowerCase() === 'key' ? ([name, key] as const) : ([name, value] as const),
      ),
      ...(size === undefined ? {} : { size }),
    },
  };
}

/** The file's size against the policy's `content-length-range`, once it is known. */
export function checkFileSize(bytes: number, size: AcceptedForm['size']): S3Error | undefined {
  if (size === undefined) return undefined;
  if (bytes > size.max) return entityTooLarge(bytes, size.max);
  if (bytes < size.min) return entityTooSmall(bytes, size.min);
  return undefined;
}
