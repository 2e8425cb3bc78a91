/**
 * `npm run event` and `npm run invoke` against a running local stage: an event made by the
 * one, piped into the other (as processes, through npm, once; in this process otherwise), runs
 * the stage's own function on its stand-ins and queues. The stage here takes the run's object store, so S3 events reach the finalizer only when
 * invoked by hand, as these tests do.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { createLambdaInvokeApi } from '#infra/local/lambda/lambda-invoke-api.ts';
import { chatLogFile, type LocalStage, startLocalStage } from '#infra/local/stage/local-stage.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { stageRecordOf, writeStageRecord } from '#infra/local/stage/stage-lock.ts';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { notifySubmission } from '#shared/notifications/notify-submission.ts';
import { notifyRule } from '#shared/notifications/token-buckets.ts';
import type { DirectUploadTicket } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { standInClients } from '#test/support/test-stage.ts';
import { stageCredentials } from '#infra/local/stage-credentials.ts';
import { LAMBDA_MAX_REQUEST_BYTES } from '#infra/local/gateway/platform-limits.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { answerBeforeBody, ONE_GIB, signedInvokeHeaders } from '#test/support/announced-body.ts';
import { runInProcess } from '#test/support/in-process-cli.ts';
import { runEvent } from '#infra/local/cli/event-cli.ts';
import { runInvoke } from '#infra/local/cli/invoke-cli.ts';

let stage: LocalStage;
let dataDir: string;
let scratch: string;

beforeAll(async () => {
  const { dynamodbEndpoint, s3Endpoint, s3Credentials } = inject('standIns');
  dataDir = await mkdtemp(join(tmpdir(), 'local-invoke-'));
  scratch = await mkdtemp(join(tmpdir(), 'local-invoke-none-'));
  const suffix = Math.random().toString(36).slice(2, 10);
  stage = await startLocalStage({
    dataDir,
    port: 0,
    standIns: { dynamodbEndpoint, s3Endpoint, s3Credentials },
    tableName: `invoke-${suffix}`,
    bucket: `invoke-${suffix}`,
  });
  await writeStageRecord(dataDir, stageRecordOf(stage));
});
afterAll(async () => {
  await stage.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `npm run event` or `npm run invoke`, run in this process with `input` on its standard input;
 * the pipe through npm below runs both as processes.
 */
function cli(
  script: 'event-cli.ts' | 'invoke-cli.ts',
  args: readonly string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return runInProcess(script === 'event-cli.ts' ? runEvent : runInvoke, args, {
    env: { LOCAL_DATA_DIR: dataDir, ...options.env },
    input: options.input ?? '',
  });
}

/** `npm run --silent event -- <eventArgs>` piped into `npm run --silent invoke -- <functionId>`. */
async function eventInto(functionId: string, eventArgs: readonly string[]): Promise<Run> {
  const event = await cli('event-cli.ts', eventArgs);
  expect(event).toMatchObject({ code: 0, stderr: '' });
  return cli('invoke-cli.ts', [functionId], { input: event.stdout });
}

const bearer = (userId: number) => stage.identityProvider.issueToken({ userId });

async function listFiles(userId: number): Promise<{ id: number; name: string }[]> {
  const response = await fetch(`${stage.url}/api/v1/user/me/file`, {
    headers: { authorization: `Bearer ${await bearer(userId)}` },
  });
  return (await response.json()) as { id: number; name: string }[];
}

async function uploadFile(userId: number, name: string): Promise<number> {
  const form = uploadForm('quarterly numbers', { name, type: 'financials' });
  const response = await fetch(`${stage.url}/api/v1/user/me/file`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await bearer(userId)}`, 'content-type': form.contentType },
    body: form.body,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

/** Lambda's own lines around an invocation's log, as its log tail shows them. */
describe('npm run event | npm run invoke, on the running local stage', () => {
  it("runs ListUserFiles with an http event for user 5: 200 with that user's files", async () => {
    const id = await uploadFile(5, 'q3.xlsx');
    await uploadFile(6, 'not-yours.xlsx');
    const piped = await new Promise<Run>((resolve) => {
      execFile(
        'sh',
        [
          '-c',
          'npm run --silent event -- http GET /api/v1/user/me/file --user 5 | npm run --silent invoke -- ListUserFiles',
        ],
        {
          cwd: REPOSITORY_ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            LOCAL_DATA_DIR: dataDir,
          },
        },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
        },
      );
    });
    expect(piped.code).toBe(0);
    const result = JSON.parse(piped.stdout) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    const files = JSON.parse(result.body) as { id: number; name: string }[];
    expect(files.map((f) => [f.id, f.name])).toEqual([[id, 'q3.xlsx']]);
  });

  it('runs FinalizeDirectUpload with an s3-put event: the uploaded bytes are recorded', async () => {
    const started = await fetch(`${stage.url}/api/v1/user/me/file/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await bearer(7)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: 12 }),
    });
    expect(started.status).toBe(201);
    const ticket = (await started.json()) as DirectUploadTicket;
    expect(await postToSignedForm(ticket, Buffer.from('twelve bytes'))).toBe(204);
    // No S3 event reached the finalizer: the upload waits.
    expect(await listFiles(7)).toEqual([]);

    const invoked = await eventInto('FinalizeDirectUpload', [
      's3-put',
      '--key',
      ticket.key,
      '--size',
      '12',
    ]);
    expect(invoked).toMatchObject({ code: 0, stdout: 'null\n' });
    expect((await listFiles(7)).map((f) => [f.id, f.name])).toEqual([[ticket.id, 'model.xlsx']]);
  });

  it('runs DeliverNotification with an sqs event: the queued notification is posted', async () => {
    const fileId = await uploadFile(8, 'deck.pdf');
    // Recorded as the notify route records it, but its message kept here, not queued.
    const messages: string[] = [];
    const { adapters, settings } = stage.wiring;
    const notification = await notifySubmission(
      {
        userFiles: adapters.userFiles,
        notifications: adapters.notifications,
        notificationQueue: { send: (body) => Promise.resolve(void messages.push(body)) },
        rateLimits: adapters.rateLimits,
        scanning: settings.MALWARE_SCANNING === 'on',
      },
      notifyRule({ burst: settings.NOTIFY_BURST, perMinute: settings.NOTIFY_RATE_PER_MINUTE }),
      { userId: 8, fileIds: [fileId], fundName: 'Fund IX', message: 'Signed.' },
    );
    expect(messages).toHaveLength(1);

    const invoked = await eventInto('DeliverNotification', ['sqs', '--body', messages[0] ?? '']);
    expect(invoked).toMatchObject({ code: 0, stdout: '{"batchItemFailures":[]}\n' });
    const posted = (await readFile(chatLogFile(dataDir), 'utf8')).trim().split('\n');
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain('Fund IX');
    const status = await fetch(
      `${stage.url}/api/v1/user/me/file/notify/${notification.notificationId}`,
      { headers: { authorization: `Bearer ${await bearer(8)}` } },
    );
    expect(((await status.json()) as { status: string }).status).toBe('sent');
  });

  it("exits 1 with Lambda's error on stdout when the function throws", async () => {
    const before = await listFiles(9);
    const invoked = await cli('invoke-cli.ts', ['FinalizeDirectUpload'], { input: '{}' });
    expect(invoked.code).toBe(1);
    expect(JSON.parse(invoked.stdout)).toMatchObject({
      errorType: 'TypeError',
      errorMessage: expect.stringContaining('Records') as unknown,
    });
    expect(await listFiles(9)).toEqual(before);
  });
});

describe('npm run invoke refuses, saying why, and runs nothing', () => {
  it('an unknown function id, listing the valid ones (exit 2)', async () => {
    expect(await cli('invoke-cli.ts', ['ListFiles'], { input: '{}' })).toEqual({
      code: 2,
      stdout: '',
      stderr: `invoke: unknown function "ListFiles"; the functions are: ${SERVICE_FUNCTIONS.map((f) => f.id).join(', ')}\n`,
    });
  });

  it('a malformed event (exit 2)', async () => {
    expect(await cli('invoke-cli.ts', ['ListUserFiles'], { input: '{"version": "2.0",' })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'invoke: the event is not JSON: Expected double-quoted property name in JSON at position 18 (line 1 column 19)\n',
    });
  });

  it('no running stage (exit 1)', async () => {
    expect(
      await cli('invoke-cli.ts', ['ListUserFiles'], {
        input: '{}',
        env: { LOCAL_DATA_DIR: scratch },
      }),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: `invoke: no local stage runs on ${scratch}; start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started\n`,
    });
  });

  it('an event of a kind npm run event does not make (exit 2)', async () => {
    const made = await cli('event-cli.ts', ['sns', '--body', '{}']);
    expect(made.code).toBe(2);
    expect(made.stdout).toBe('');
    expect(made.stderr).toMatch(
      /^event: unknown kind "sns"; the kinds are: http, s3-put, sqs, sns-alarm\n\nusage: /,
    );
  });
});

describe("the stage's Invoke API, as Lambda answers", () => {
  let server: Server;
  let lambda: LambdaClient;
  beforeAll(async () => {
    const fixture = { entry: 'test/support/fixture-function.ts', memoryMb: 128 };
    server = createServer(
      createLambdaInvokeApi({
        wiring: stage.wiring,
        credentials: LOCAL_CREDENTIALS,
        functions: new Map([
          // Hasty's limit is meant to pass; Fixture's only when the machine is stuck.
          ['Fixture', { ...fixture, timeoutSeconds: waitLimit(10_000) / 1000 }],
          ['Hasty', { ...fixture, timeoutSeconds: 0.2 }],
        ]),
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    lambda = new LambdaClient({
      endpoint: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    lambda.destroy();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  });

  const invoke = async (name: string, event: unknown) => {
    const answer = await lambda.send(
      new InvokeCommand({
        FunctionName: name,
        Payload: Buffer.from(JSON.stringify(event)),
        LogType: 'Tail',
      }),
    );
    return {
      status: answer.StatusCode,
      error: answer.FunctionError,
      payload: JSON.parse(Buffer.from(answer.Payload ?? new Uint8Array()).toString()) as unknown,
      log: Buffer.from(answer.LogResult ?? '', 'base64').toString(),
    };
  };

  it('returns the result, with what the function logged in the log tail', async () => {
    const answer = await invoke('Fixture', { log: 'hello from the handler' });
    expect(answer).toMatchObject({
      status: 200,
      error: undefined,
      payload: { echoed: { log: 'hello from the handler' } },
    });
    expect(answer.log).toBe('hello from the handler\n');
  });

  it('stops a function at its timeout: Sandbox.Timedout, Unhandled', async () => {
    const answer = await invoke('Hasty', { sleepMs: 2000 });
    expect(answer).toMatchObject({
      status: 200,
      error: 'Unhandled',
      payload: {
        errorType: 'Sandbox.Timedout',
        errorMessage: expect.stringMatching(/^Task timed out after 0\.20 seconds$/) as unknown,
      },
    });
  });

  it('reports a thrown error as the Node.js runtime does', async () => {
    const answer = await invoke('Fixture', { throwMessage: 'out of range' });
    expect(answer).toMatchObject({
      status: 200,
      error: 'Unhandled',
      payload: { errorType: 'RangeError', errorMessage: 'out of range' },
    });
  });

  it('refuses an unknown function and a body that is not JSON, by Lambda’s error types', async () => {
    await expect(invoke('Missing', {})).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'No function Missing',
    });
    await expect(
      lambda.send(new InvokeCommand({ FunctionName: 'Fixture', Payload: Buffer.from('{oops') })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestContentException',
      message: 'The event is not JSON',
    });
  });
});

describe('the local Invoke API runs a function only for a signed request from no web page', () => {
  const owner = 7011;
  const fileId = 4;
  const { dynamodb, s3 } = standInClients();
  const key = { PK: `USER#${String(owner)}`, SK: `FILE#${String(fileId)}` };
  /** The event of another user's DELETE, claims and all: what an attacker would send. */
  const deleteEvent = JSON.stringify({
    version: '2.0',
    routeKey: 'DELETE /api/v1/user/me/file/{file_id}',
    rawPath: `/api/v1/user/me/file/${String(fileId)}`,
    pathParameters: { file_id: String(fileId) },
    requestContext: { authorizer: { jwt: { claims: { sub: String(owner) } } } },
  });
  const invocations = () =>
    `${stage.lambdaEndpoint}/2015-03-31/functions/DeleteUserFile/invocations`;
  const stillThere = async () =>
    (await dynamodb.send(new GetCommand({ TableName: stage.tableName, Key: key }))).Item;

  beforeAll(async () => {
    await dynamodb.send(
      new PutCommand({
        TableName: stage.tableName,
        Item: toUserFileItem({
          id: fileId,
          userId: owner,
          name: 'mine.pdf',
          type: 'deck',
          createdAt: '2026-11-24T06:00:00.000Z',
          updatedAt: null,
          isArchived: false,
          filesize: 5,
          location: null,
        }),
      }),
    );
  });
  afterAll(() => {
    dynamodb.destroy();
    s3.destroy();
  });

  /** An error of the Invoke API, its exact body, and the file still there. */
  const refusedWith = async (response: Response, status: number, type: string, body: unknown) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('x-amzn-errortype')).toBe(type);
    expect(await response.json()).toEqual(body);
    expect(await stillThere()).toBeDefined();
  };

  it('a web page’s simple POST (text/plain, Origin, no signature) → 403, the file stays', async () => {
    const response = await fetch(invocations(), {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: deleteEvent,
    });
    await refusedWith(response, 403, 'AccessDeniedException', {
      message: 'No request from a web page',
    });
  });

  it('no signature → 403 MissingAuthenticationTokenException, the file stays', async () => {
    const response = await fetch(invocations(), { method: 'POST', body: deleteEvent });
    // AWS's answer to a request it will not authenticate: {"message": …}, not Lambda's own.
    await refusedWith(response, 403, 'MissingAuthenticationTokenException', {
      message: 'Missing Authentication Token',
    });
  });

  it('an X-Amz-Invocation-Type added after signing → 403 InvalidSignatureException, the file stays', async () => {
    // A captured RequestResponse request, replayed as Event: the signature does not cover it.
    const headers = await signedInvokeHeaders(
      invocations(),
      deleteEvent,
      await stageCredentials(dataDir),
    );
    const response = await fetch(invocations(), {
      method: 'POST',
      headers: { ...headers, 'x-amz-invocation-type': 'Event' },
      body: deleteEvent,
    });
    await refusedWith(response, 403, 'InvalidSignatureException', {
      message: 'There were headers present in the request which were not signed',
    });
  });

  it('signed as DryRun or Event → 400 InvalidParameterValueException, nothing runs, the file stays', async () => {
    for (const invocationType of ['DryRun', 'Event']) {
      const headers = await signedInvokeHeaders(
        invocations(),
        deleteEvent,
        await stageCredentials(dataDir),
        { 'x-amz-invocation-type': invocationType },
      );
      const response = await fetch(invocations(), { method: 'POST', headers, body: deleteEvent });
      await refusedWith(response, 400, 'InvalidParameterValueException', {
        message: `The local stage runs only RequestResponse invocations, not ${invocationType}`,
      });
    }
  });

  it('signed with s3rver’s well-known secret → 403 InvalidSignatureException, the file stays', async () => {
    // The stage's secret is its own (credentials.json), never the S3RVER any page knows.
    const forger = new LambdaClient({
      endpoint: stage.lambdaEndpoint,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      maxAttempts: 1,
    });
    const refusal = await forger
      .send(
        new InvokeCommand({ FunctionName: 'DeleteUserFile', Payload: Buffer.from(deleteEvent) }),
      )
      .then(
        () => undefined,
        (error: unknown) =>
          error as { name: string; message: string; $metadata: { httpStatusCode?: number } },
      );
    forger.destroy();
    expect(refusal?.name).toBe('InvalidSignatureException');
    expect(refusal?.message).toBe(
      'The request signature we calculated does not match the signature you provided.',
    );
    expect(refusal?.$metadata.httpStatusCode).toBe(403);
    expect(await stillThere()).toBeDefined();
  });

  it('a signed request that names a web page’s origin → 403 all the same', async () => {
    const client = new LambdaClient({
      endpoint: stage.lambdaEndpoint,
      region: LOCAL_REGION,
      credentials: await stageCredentials(dataDir),
      maxAttempts: 1,
    });
    client.middlewareStack.add(
      (next) => (args) => {
        (args.request as { headers: Record<string, string> }).headers.origin =
          'https://evil.example';
        return next(args);
      },
      { step: 'build', name: 'fromAWebPage' },
    );
    const refusal = await client
      .send(
        new InvokeCommand({ FunctionName: 'DeleteUserFile', Payload: Buffer.from(deleteEvent) }),
      )
      .then(
        () => undefined,
        (error: unknown) => error as { name: string },
      );
    client.destroy();
    expect(refusal?.name).toBe('AccessDeniedException');
    expect(await stillThere()).toBeDefined();
  });

  it('listens on loopback alone, whatever HOST says', () => {
    expect(new URL(stage.lambdaEndpoint).hostname).toBe('localhost');
  });
});

describe('the local Invoke API answers before it reads a body it refuses (issue 41)', () => {
  const url = () => `${stage.lambdaEndpoint}/2015-03-31/functions/ListUserFiles/invocations`;
  const TOO_LARGE = { message: 'The event is over 6 MiB' };
  let credentials: Credentials;
  beforeAll(async () => {
    credentials = await stageCredentials(dataDir);
  });

  it('unsigned, announcing 1 GiB → 403 MissingAuthenticationTokenException before the body', async () => {
    expect(await answerBeforeBody(url(), ONE_GIB, {})).toMatchObject({
      status: 403,
      headers: { 'x-amzn-errortype': 'MissingAuthenticationTokenException', connection: 'close' },
      body: JSON.stringify({ message: 'Missing Authentication Token' }),
    });
  });

  it('signed with another access key, announcing 1 GiB → 403 UnrecognizedClientException before the body', async () => {
    const headers = await signedInvokeHeaders(url(), '', { ...credentials, accessKeyId: 'AKIDX' });
    expect(await answerBeforeBody(url(), ONE_GIB, headers)).toMatchObject({
      status: 403,
      headers: { 'x-amzn-errortype': 'UnrecognizedClientException', connection: 'close' },
      body: JSON.stringify({ message: 'The security token included in the request is invalid.' }),
    });
  });

  it('signed, announcing 1 GiB → 413 RequestEntityTooLargeException before the body', async () => {
    const headers = await signedInvokeHeaders(url(), '', credentials);
    expect(await answerBeforeBody(url(), ONE_GIB, headers)).toMatchObject({
      status: 413,
      headers: { 'x-amzn-errortype': 'RequestEntityTooLargeException', connection: 'close' },
      body: JSON.stringify(TOO_LARGE),
    });
  });

  it("a signed body of 6 MiB + 1 byte → 413 with Lambda's body, whole or chunked", async () => {
    const body = `"${'a'.repeat(LAMBDA_MAX_REQUEST_BYTES - 1)}"`;
    expect(body.length).toBe(LAMBDA_MAX_REQUEST_BYTES + 1);
    const headers = await signedInvokeHeaders(url(), body, credentials);
    const whole = await fetch(url(), { method: 'POST', headers, body });
    expect(whole.status).toBe(413);
    expect(whole.headers.get('x-amzn-errortype')).toBe('RequestEntityTooLargeException');
    expect(await whole.json()).toEqual(TOO_LARGE);
    // No length announced: the bytes are counted as they come.
    const bytes = new TextEncoder().encode(body);
    const chunked = await fetch(url(), {
      method: 'POST',
      headers,
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1024 * 1024) {
            controller.enqueue(bytes.subarray(at, at + 1024 * 1024));
          }
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual(TOO_LARGE);
  });

  it('a signed body of 6 MiB exactly is taken', async () => {
    const body = `"${'a'.repeat(LAMBDA_MAX_REQUEST_BYTES - 2)}"`;
    const headers = await signedInvokeHeaders(url(), body, credentials);
    const taken = await fetch(url(), { method: 'POST', headers, body });
    // Run, not refused: Lambda's 200 with the function's answer to a string event (its 500).
    expect(taken.status).toBe(200);
    expect(taken.headers.get('x-amzn-errortype')).toBeNull();
    expect(await taken.json()).toMatchObject({ statusCode: 500 });
  });
});
