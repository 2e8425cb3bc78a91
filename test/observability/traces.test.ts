/**
 * The handlers' X-Ray subsegments, as Lambda runs them: tracing on (AWS_EXECUTION_ENV and a
 * trace header, as Lambda sets them), the deployed entries on the stand-ins, and a UDP socket
 * standing in for the X-Ray daemon, which receives every closed subsegment.
 */
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-events.ts';
import { deployedEntryEnvironment } from '#test/support/deployed-entry-environment.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { uploadForm } from '#test/support/multipart.ts';

interface Subsegment {
  readonly name: string;
  readonly namespace?: string;
  readonly error?: boolean;
  readonly fault?: boolean;
  readonly annotations?: Record<string, unknown>;
  readonly aws?: Record<string, unknown>;
  readonly cause?: { readonly exceptions?: readonly { readonly message?: string }[] };
  readonly subsegments?: Subsegment[];
  readonly parent_id?: string;
  readonly id: string;
}

type Handler = (event: unknown, context: Context) => Promise<ApiResult>;

// Not through test-stage.ts: it loads the handlers, whose tracer must see Lambda's variables.
const { dynamodbEndpoint, s3Endpoint, s3Credentials } = inject('standIns');
const name = `traces-${randomUUID().slice(0, 8)}`;
let daemon: Socket;
let received: Subsegment[] = [];
let upload: Handler;
let list: Handler;

beforeAll(async () => {
  daemon = createSocket('udp4');
  daemon.on('message', (message) => {
    // "{format header}\n{document}"
    const document = message.toString().split('\n')[1];
    if (document !== undefined) received.push(JSON.parse(document) as Subsegment);
  });
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  const { port } = daemon.address();
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
  Object.assign(process.env, {
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: '/var/task',
    _HANDLER: 'index.handler',
    _X_AMZN_TRACE_ID: 'Root=1-6741a5f0-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1',
    AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${String(port)}`,
    ...deployedEntryEnvironment({ dynamodbEndpoint, s3Endpoint, s3Credentials, name }),
  });
  ({ handler: upload } = (await import('#functions/upload-user-file/handler.ts')) as {
    handler: Handler;
  });
  ({ handler: list } = (await import('#functions/list-user-files/handler.ts')) as {
    handler: Handler;
  });
  const { tracer } = await import('#shared/observability/tracer.ts');
  expect(tracer.isTracingEnabled()).toBe(true);
});
afterAll(() => {
  daemon.close();
});
beforeEach(() => {
  received = [];
});

/** The handler subsegment of the invocation, once the daemon has it. */
async function handlerSegment(): Promise<Subsegment> {
  await expect
    .poll(() => received.some((s) => s.name === '## handler'), { timeout: waitLimit(10_000) })
    .toBe(true);
  const found = received.find((s) => s.name === '## handler');
  if (found === undefined) throw new Error('no handler subsegment');
  return found;
}

const ROUTE = 'POST /api/v1/user/me/file';

describe('traces', () => {
  it('annotate the route, status and outcome, and hold each AWS call, never the caller', async () => {
    const event = apiEvent({
      ...uploadForm('traced bytes', { name: 'secret-plan.pdf' }),
      claims: { sub: '424242' },
      routeKey: ROUTE,
    });
    const result = await upload(event, lambdaContext());
    expect(result.statusCode).toBe(201);
    const segment = await handlerSegment();
    expect(segment.annotations).toEqual({
      ColdStart: true,
      Service: 'file-service',
      route: ROUTE,
      status: 201,
      outcome: 'ok',
    });
    expect(segment.error ?? false).toBe(false);
    expect(segment.fault ?? false).toBe(false);
    // Subsegments close before their parent, so the AWS calls arrive on their own.
    const calls = received.filter((s) => s.namespace === 'aws').map((s) => s.name);
    expect(new Set(calls)).toEqual(new Set(['DynamoDB', 'S3']));
    // Of a call: the resource it touched, never the key it named there (which holds the user).
    const put = received.find((s) => s.name === 'S3')?.aws;
    expect(put).toMatchObject({ operation: 'PutObject', bucket_name: name });
    expect(put).not.toHaveProperty('key');
    const everything = JSON.stringify(received);
    expect(everything).not.toContain('424242');
    expect(everything).not.toContain('secret-plan');
  });

  it('mark a refusal an error, not a fault', async () => {
    const event = apiEvent({ ...uploadForm('x', { type: 'nope' }), routeKey: ROUTE });
    expect((await upload(event, lambdaContext())).statusCode).toBe(422);
    const segment = await handlerSegment();
    expect(segment.annotations).toMatchObject({ status: 422, outcome: 'refused' });
    expect([segment.error, segment.fault ?? false]).toEqual([true, false]);
  });

  it('mark our own failure a fault, with its error', async () => {
    process.env.TABLE_NAME = `${name}-missing`;
    const event = apiEvent({ routeKey: 'GET /api/v1/user/me/file' });
    expect((await list(event, lambdaContext())).statusCode).toBe(500);
    const segment = await handlerSegment();
    expect(segment.annotations).toMatchObject({ status: 500, outcome: 'failed' });
    expect(segment.fault).toBe(true);
    expect(segment.cause?.exceptions?.[0]?.message).toContain('non-existent table');
  });
});
