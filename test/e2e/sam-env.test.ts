/**
 * SAM CLI on the local stage (issue 35, build 3). The local template declares every variable
 * a function reads, SDK endpoints included, each with a value SAM resolves (a literal, or a
 * parameter with a default: samcli/lib/intrinsic_resolver); SAM passes anything else as an
 * empty string. The deployed templates carry none of it (test/infra/service-stacks.test.ts).
 *
 * `npm run sam:env` writes SAM CLI's --env-vars file from the running stage. It
 * covers every variable each function of the local template declares, with addresses a
 * container reaches (not loopback), and the functions' own Lambda entries, run in a process
 * given only what SAM would give them (its AWS_* variables, the shell's credentials, the env
 * file), work on the stage through those addresses. SAM and Docker are not on these
 * machines; this is as close as they let us come.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listUserFilesFunction } from '#functions/list-user-files/function.ts';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { uploadUserFileFunction } from '#functions/upload-user-file/function.ts';
import { LOCAL_REGION } from '#infra/local/stage/emulators.ts';
import { LOCAL_BUCKET } from '#infra/local/object-store/bucket-store.ts';
import { LOCAL_TABLE } from '#infra/local/stage/local-stage.ts';
import {
  LOCAL_BUCKET_NAME,
  LOCAL_SDK_ENVIRONMENT,
  LOCAL_TABLE_NAME,
} from '#infra/local/sam/sam-local-template.ts';
import { RESOURCE_NAMES } from '#shared/functions/function-declaration.ts';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { httpEvent } from '#infra/local/gateway/api-gateway-event.ts';
import {
  type SamEnvironment,
  samResolvedValue,
  templateFunctions,
} from '#infra/local/sam/sam-environment.ts';
import { writeStageRecord } from '#infra/local/stage/stage-lock.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import { answerBeforeBody, ONE_GIB } from '#test/support/announced-body.ts';
import { synthStage } from '#test/support/cdk-app.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import { cliEnvironment } from '#test/support/cli-environment.ts';

const execFileAsync = promisify(execFile);
const CLI = join(REPOSITORY_ROOT, 'infra/local/sam/sam-env-cli.ts');

// Every interface, as the flow asks (HOST=0.0.0.0): the stage names this machine's network address.
const stage = useTestStage(() => ({ host: '0.0.0.0' }));

type TemplateJson = {
  Parameters?: Record<string, { Default?: unknown }>;
  Resources: Record<
    string,
    {
      Type: string;
      Metadata?: Record<string, unknown>;
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }
  >;
};

let scratch: string;
let templateFile: string;
let template: TemplateJson;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sam-env-'));
  template = synthStage({ stage: 'local' }).api.toJSON() as TemplateJson;
  templateFile = join(scratch, 'template.json');
  await writeFile(templateFile, JSON.stringify(template));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const lambdas = (json: TemplateJson) =>
  Object.entries(json.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');

const variablesOf = (json: TemplateJson, functionId: string): Record<string, unknown> => {
  const found = lambdas(json).find(([, r]) => r.Metadata?.SamResourceId === functionId);
  if (found === undefined) throw new Error(`${functionId} has no SamResourceId`);
  return found[1].Properties.Environment?.Variables ?? {};
};

/** The SDK variables a function declares locally: those of each resource it reaches. */
const sdkVariablesOf = (declaration: FunctionDeclaration): Record<string, string> =>
  Object.assign(
    {},
    ...RESOURCE_NAMES.filter((r) => declaration[r] !== undefined).map(
      (r) => LOCAL_SDK_ENVIRONMENT[r],
    ),
  ) as Record<string, string>;

/** Values SAM resolves (intrinsics_symbol_table.py): a literal, a parameter with a default, an ARN. */
const samResolves = (json: TemplateJson, value: unknown): boolean => {
  if (samResolvedValue(json, value) !== undefined) return true;
  const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
  return Array.isArray(getAtt) && getAtt[1] === 'Arn';
};

/** `npm run --silent sam:env -- <args>` in a home of its own: exit code, stdout, stderr. */
async function samEnv(args: readonly string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI, ...args], {
      cwd: REPOSITORY_ROOT,
      env: cliEnvironment({ LOCAL_STAGE_HOME: join(scratch, 'home'), ...env }),
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}

const LOOPBACK = /localhost|127\.\d+\.\d+\.\d+|\[::1\]/;

/**
 * A function's Lambda entry in a process of its own, given what `sam local invoke` gives its
 * container (samcli/local/lambdafn/env_vars.py): SAM's AWS_* variables with the shell's
 * credentials and region, and the function's variables from the env file. Nothing else.
 */
async function invokeAsSam(
  declaration: FunctionDeclaration,
  variables: Record<string, string>,
  credentials: Record<string, string>,
  event: unknown,
): Promise<{ statusCode: number; body: string }> {
  const runner = `
    const { handler } = await import(${JSON.stringify(pathToFileURL(join(REPOSITORY_ROOT, declaration.entry)).href)});
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const context = { functionName: ${JSON.stringify(declaration.id)}, awsRequestId: 'sam-env-test',
      getRemainingTimeInMillis: () => 20000, callbackWaitsForEmptyEventLoop: true };
    const result = await handler(JSON.parse(input), context);
    (await import('node:fs')).writeSync(3, JSON.stringify(result));
    process.exit(0);
  `;
  // The result on a descriptor of its own: the function's logs take stdout, as on Lambda.
  const child = spawn(process.execPath, ['--input-type=module', '-e', runner], {
    cwd: REPOSITORY_ROOT,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      AWS_SAM_LOCAL: 'true',
      AWS_LAMBDA_FUNCTION_NAME: declaration.id,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(declaration.sizing.memoryMb),
      AWS_LAMBDA_FUNCTION_TIMEOUT: String(declaration.sizing.timeoutSeconds),
      AWS_REGION: credentials.AWS_REGION ?? '',
      AWS_DEFAULT_REGION: credentials.AWS_DEFAULT_REGION ?? '',
      AWS_ACCESS_KEY_ID: credentials.AWS_ACCESS_KEY_ID ?? '',
      AWS_SECRET_ACCESS_KEY: credentials.AWS_SECRET_ACCESS_KEY ?? '',
      ...variables,
    },
  });
  child.stdin.end(JSON.stringify(event));
  let out = '';
  let err = '';
  const result = child.stdio[3] as NodeJS.ReadableStream;
  result.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${declaration.id} exited with ${String(code)}: ${err}`);
  return JSON.parse(out) as { statusCode: number; body: string };
}

describe('npm run sam:env', () => {
  let environment: SamEnvironment;
  let credentials: Record<string, string>;

  it("covers every variable each function declares, with the stage's values a container reaches", async () => {
    const written = await samEnv(['--template', templateFile], { LOCAL_DATA_DIR: stage().dataDir });
    expect(written.err).toContain(`${String(SERVICE_FUNCTIONS.length)} functions`);
    expect(written.code).toBe(0);
    environment = JSON.parse(written.out) as SamEnvironment;
    const address = new URL(stage().url).hostname;
    expect(address).not.toMatch(LOOPBACK);
    for (const { functionId, variables } of templateFunctions(template)) {
      const values = environment[functionId] ?? {};
      expect(Object.keys(values).sort(), functionId).toEqual(Object.keys(variables).sort());
      for (const [name, value] of Object.entries(values)) {
        expect(value, `${functionId} ${name}`).not.toBe('');
        expect(value, `${functionId} ${name}`).not.toMatch(LOOPBACK);
      }
    }
    expect(environment.UploadUserFile).toMatchObject({
      TABLE_NAME: stage().tableName,
      BUCKET_NAME: stage().bucket,
      AWS_ENDPOINT_URL_S3: `http://${address}:${new URL(stage().s3Endpoint).port}`,
      AWS_ENDPOINT_URL_DYNAMODB: expect.stringMatching(`^http://${address}:\\d+$`) as unknown,
    });

    const exported = await samEnv(['--credentials'], { LOCAL_DATA_DIR: stage().dataDir });
    expect(exported.code).toBe(0);
    credentials = Object.fromEntries(
      [...exported.out.matchAll(/(AWS_[A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]),
    ) as Record<string, string>;
    expect(credentials).toEqual({
      AWS_ACCESS_KEY_ID: stage().s3Credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: stage().s3Credentials.secretAccessKey,
      AWS_DEFAULT_REGION: LOCAL_REGION,
      AWS_REGION: LOCAL_REGION,
    });
  });

  it('runs the functions, given only what SAM gives them, on the stage', async () => {
    const host = new URL(stage().url).host;
    const form = uploadForm('bytes through SAM', { name: 'sam.txt', type: 'other' });
    const claims = { sub: '3501' };
    const uploaded = await invokeAsSam(
      uploadUserFileFunction,
      environment.UploadUserFile ?? {},
      credentials,
      httpEvent({
        method: 'POST',
        target: '/api/v1/user/me/file',
        host,
        claims,
        headers: [['content-type', form.contentType]],
        body: form.body,
      }),
    );
    expect(uploaded.statusCode).toBe(201);
    const { id } = JSON.parse(uploaded.body) as { id: number };
    expect(await stage().objectKeys()).toContain(`users/3501/files/${String(id)}`);

    const listed = await invokeAsSam(
      listUserFilesFunction,
      environment.ListUserFiles ?? {},
      credentials,
      httpEvent({ method: 'GET', target: '/api/v1/user/me/file', host, claims }),
    );
    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body)).toMatchObject([{ id, name: 'sam.txt', user_id: 3501 }]);
  });

  it("lets through DynamoDB requests signed with the stage's credentials only", async () => {
    const endpoint = environment.ListUserFiles?.AWS_ENDPOINT_URL_DYNAMODB ?? '';
    const unsigned = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
      },
      body: '{}',
    });
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toEqual({
      __type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    });
    // Only POST / goes on: no other host or path is reachable through the front.
    for (const [method, path] of [
      ['POST', '//elsewhere.example/'],
      ['POST', '/shell'],
      ['GET', '/'],
    ] as const) {
      const astray = await fetch(`${endpoint}${path}`, {
        method,
        headers: { authorization: 'AWS4-HMAC-SHA256 Credential=S3RVER/x' },
      });
      expect(astray.status).toBe(400);
      expect(await astray.json()).toEqual({
        __type: 'com.amazon.coral.service#UnknownOperationException',
        message: 'DynamoDB takes POST / only',
      });
    }
    const stranger = new DynamoDBClient({
      endpoint,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      maxAttempts: 1,
    });
    const key = { PK: { S: 'USER#sam-env' }, SK: { S: 'PROBE' } };
    await expect(
      stranger.send(new GetItemCommand({ TableName: stage().tableName, Key: key })),
    ).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided.',
    });
    stranger.destroy();
  });

  it('refuses a malformed signature or another access key before reading a byte of the body', async () => {
    const endpoint = environment.ListUserFiles?.AWS_ENDPOINT_URL_DYNAMODB ?? '';
    const scope = `20260101/${LOCAL_REGION}/dynamodb/aws4_request`;
    const signature = `SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`;
    for (const [authorization, type, message] of [
      [
        'AWS4-HMAC-SHA256 Credential=S3RVER/x',
        'IncompleteSignatureException',
        'Authorization header is malformed',
      ],
      [
        `AWS4-HMAC-SHA256 Credential=AKIDX/${scope}, ${signature}`,
        'UnrecognizedClientException',
        'The security token included in the request is invalid.',
      ],
    ] as const) {
      // Announcing 1 GiB and sending 1 KiB: only an answer before the body can come.
      const answer = await answerBeforeBody(`${endpoint}/`, ONE_GIB, {
        authorization,
        'x-amz-date': '20260101T000000Z',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
      });
      expect(answer).toMatchObject({ status: 400, headers: { connection: 'close' } });
      expect(JSON.parse(answer.body)).toEqual({
        __type: `com.amazon.coral.service#${type}`,
        message,
      });
    }
  });

  it('refuses, with 2, when no stage runs or a container could not reach it', async () => {
    const none = await samEnv(['--template', templateFile], {});
    expect(none).toEqual({
      code: 2,
      out: '',
      err: `sam:env: no local stage runs on the data folder ${join(scratch, 'home')}: start one with HOST=0.0.0.0 npm start\n`,
    });

    const loopback = join(scratch, 'loopback');
    const record = {
      pid: process.pid,
      url: 'http://localhost:8000',
      lambdaEndpoint: 'http://localhost:8001',
      dynamodbEndpoint: 'http://127.0.0.1:8002',
      s3Endpoint: 'http://127.0.0.1:8003',
      tableName: 'file-service',
      bucket: 'bucket',
    };
    await mkdir(loopback);
    await writeStageRecord(loopback, record);
    expect(await samEnv(['--template', templateFile], { LOCAL_DATA_DIR: loopback })).toEqual({
      code: 2,
      out: '',
      err:
        'sam:env: the stage at http://localhost:8000 listens on loopback only, where a container cannot reach it: ' +
        'start it with HOST=0.0.0.0 npm start (or HOST=<an address of this machine that containers reach>)\n',
    });

    const named = join(scratch, 'named');
    await mkdir(named);
    await writeStageRecord(named, { ...record, url: 'http://devbox.example:8000' });
    expect(await samEnv(['--template', templateFile], { LOCAL_DATA_DIR: named })).toEqual({
      code: 2,
      out: '',
      err:
        'sam:env: devbox.example is not an IP address: the S3 client would address the bucket as <bucket>.devbox.example; ' +
        'give --host <the IP address a container reaches this machine by>\n',
    });
  });
});

describe('the local template, for SAM CLI', () => {
  it('names each function by its id and gives every variable a value SAM resolves', () => {
    expect(templateFunctions(template).map((fn) => fn.functionId)).toEqual(
      SERVICE_FUNCTIONS.map((fn) => fn.id),
    );
    // CDK's own helper functions too: SAM would run them with whatever they hold.
    for (const [logicalId, fn] of lambdas(template)) {
      for (const [name, value] of Object.entries(fn.Properties.Environment?.Variables ?? {})) {
        expect(samResolves(template, value), `${logicalId} ${name}: ${JSON.stringify(value)}`).toBe(
          true,
        );
      }
    }
  });

  it("declares the SDK's endpoint of every service a function calls, pointing nowhere until sam:env", () => {
    for (const declaration of SERVICE_FUNCTIONS) {
      const variables = variablesOf(template, declaration.id);
      expect(variables, declaration.id).toMatchObject(sdkVariablesOf(declaration));
      for (const [name, value] of Object.entries(variables)) {
        if (name.startsWith('AWS_ENDPOINT_URL_')) expect(value).toMatch(/\.invalid$/);
      }
    }
    expect(sdkVariablesOf(uploadUserFileFunction)).toEqual({
      AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamodb.set-by-npm-run-sam-env.invalid',
      AWS_ENDPOINT_URL_S3: 'http://s3.set-by-npm-run-sam-env.invalid',
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    });
  });

  it("takes the data stack's outputs as parameters, the local stage's names by default", () => {
    expect(LOCAL_TABLE_NAME).toBe(LOCAL_TABLE);
    expect(LOCAL_BUCKET_NAME).toBe(LOCAL_BUCKET);
    expect(template.Parameters?.TableName?.Default).toBe(LOCAL_TABLE);
    expect(template.Parameters?.BucketName?.Default).toBe(LOCAL_BUCKET);
    expect(variablesOf(template, 'UploadUserFile')).toMatchObject({
      TABLE_NAME: { Ref: 'TableName' },
      BUCKET_NAME: { Ref: 'BucketName' },
    });
  });
});
