/**
 * The upload handlers' Lambda entries, as Lambda runs them (deployed adapters, built from the
 * function's environment): the whole body in the event, base64-encoded, as
 * API Gateway sends a multipart body; S3 events straight to the finalizer.
 */
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Context, S3Event } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';
import { deployedEntryEnvironment } from '#test/support/deployed-entry-environment.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { s3, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
const name = `lambda-${randomUUID().slice(0, 8)}`;

type Handler = (event: unknown, context: Context) => Promise<ApiResult>;
let upload: Handler;
let finalize: (event: S3Event, context: Context) => Promise<void>;

beforeAll(async () => {
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
  Object.assign(
    process.env,
    deployedEntryEnvironment({ dynamodbEndpoint, s3Endpoint, s3Credentials, name }),
  );
  ({ handler: upload } = (await import('#functions/upload-user-file/handler.ts')) as {
    handler: Handler;
  });
  ({ handler: finalize } = await import('#functions/finalize-direct-upload/handler.ts'));
});

const objects = async () =>
  ((await s3.send(new ListObjectsV2Command({ Bucket: name }))).Contents ?? []).map((o) => o.Key);

const uploadEvent = (form: { body: Buffer; contentType: string }, headers = {}) => {
  const event = apiEvent({ body: form.body, contentType: form.contentType, claims: { sub: '9' } });
  return { ...event, headers: { ...event.headers, ...headers } };
};

describe('POST /api/v1/user/me/file on Lambda (the body whole in the event)', () => {
  it('stores the file and answers 201', async () => {
    const result = await upload(
      uploadEvent(uploadForm('lambda bytes', { name: 'l.txt' })),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(201);
    const body = bodyOf(result) as { id: number; filesize: number; user_id: number };
    expect(body).toMatchObject({ user_id: 9, filesize: 12, name: 'l.txt' });
    expect(await objects()).toContain(`users/9/files/${body.id}`);
  });

  it('answers 422 and stores nothing for a bad form', async () => {
    const before = await objects();
    const result = await upload(uploadEvent(uploadForm('x', { type: 'nope' })), lambdaContext());
    expect(result.statusCode).toBe(422);
    expect((bodyOf(result) as { detail: { type: string }[] }).detail.map((e) => e.type)).toEqual([
      'enum',
    ]);
    expect(await objects()).toEqual(before);
  });

  it('replays an Idempotency-Key with the first response', async () => {
    const form = uploadForm('idempotent', { name: 'i.txt' });
    const first = await upload(uploadEvent(form, { 'idempotency-key': 'abc' }), lambdaContext());
    const before = await objects();
    const second = await upload(uploadEvent(form, { 'idempotency-key': 'abc' }), lambdaContext());
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(bodyOf(second)).toEqual(bodyOf(first));
    expect(await objects()).toEqual(before);
  });
});

describe('the finalizer', () => {
  const event = (key: string): S3Event =>
    ({
      Records: [
        {
          eventName: 'ObjectCreated:Post',
          s3: { bucket: { name }, object: { key, size: 1 } },
        },
      ],
    }) as unknown as S3Event;

  it('leaves objects alone that are no direct upload: other keys, multipart uploads', async () => {
    await expect(finalize(event('users/9/files/424242'), lambdaContext())).resolves.toBeUndefined();
    await expect(finalize(event('somewhere/else.txt'), lambdaContext())).resolves.toBeUndefined();
    await expect(finalize(event('users/9/files/1%2B2'), lambdaContext())).resolves.toBeUndefined();
    await expect(finalize(event('users/9/files/%zz'), lambdaContext())).resolves.toBeUndefined();
  });
});
