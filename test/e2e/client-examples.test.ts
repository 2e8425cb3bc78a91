/**
 * The client examples in examples/, run as a client runs them, against one local stage: the
 * Python one (standard library only) with python3, the TypeScript one with the project's
 * node. Each uploads a small file (multipart) and one just above the multipart limit (the
 * direct upload, declaring its SHA-256), lists, shows its usage, downloads (checking the
 * bytes' SHA-256), notifies, updates a deal file and gets a realtime token; the files are then
 * checked through the API. The stage holds each user to 2 files and 5,000,000 bytes, so the
 * clients' quota refusal can be met too.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { GetObjectTaggingCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MULTIPART_UPLOAD_MAX_FILE_BYTES } from '#infra/local/gateway/platform-limits.ts';
import { eventually } from '#test/support/eventually.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import {
  ChecksumMismatchError,
  FileServiceClient,
  FileServiceError,
  QuotaExceededError,
} from '../../examples/typescript/file-service-client.ts';

const run = promisify(execFile);
/** Each user's storage quota on this file's stage: room for the demos' two files, no more. */
const MAX_FILES = 2;
const MAX_BYTES = 5_000_000;
const stage = useTestStage(() => ({
  settings: { MAX_FILES_PER_USER: MAX_FILES, MAX_BYTES_PER_USER: MAX_BYTES },
}));
const scratch = resolve('.test-artifacts/client-examples');
const PYTHON = 'examples/python/file_service_client.py';
const TYPESCRIPT = 'examples/typescript/demo.ts';

const small = { name: 'notes.txt', bytes: Buffer.from('Q3 notes, version 1\n') };
/** One byte over the multipart limit the examples share with the docs: the direct upload. */
const large = { name: 'model.bin', bytes: randomBytes(MULTIPART_UPLOAD_MAX_FILE_BYTES + 1) };
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** The digest as the service and the examples write it: base64 of the 32 bytes. */
const base64Sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');
const noUsage = {
  files: { used: 0, reserved: 0, allowed: MAX_FILES },
  bytes: { used: 0, reserved: 0, allowed: MAX_BYTES },
};
/** The service's refusal of one more file, or of more bytes, than the quota leaves. */
const overFiles = `Storage quota exceeded: ${String(MAX_FILES)} files allowed, ${String(MAX_FILES)} in use, 1 more asked`;
const overBytes = `Storage quota exceeded: ${String(MAX_BYTES)} bytes allowed, 0 in use, ${String(MAX_BYTES + 1)} more asked`;

beforeAll(async () => {
  await mkdir(scratch, { recursive: true });
  await writeFile(join(scratch, small.name), small.bytes);
  await writeFile(join(scratch, large.name), large.bytes);
  await writeFile(join(scratch, 'deal.pdf'), 'deal deck\n');
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** A group with the user as its editor, a deal and a deal file: the update's target. */
async function dealFileOf(user: number, group: number) {
  for (const args of [
    ['group', 'add', '--group', String(group), '--name', 'Examples'],
    ['member', 'add', '--group', String(group), '--user', String(user), '--role', 'editor'],
    ['deal', 'add', '--group', String(group), '--deal', '1', '--name', 'Example deal'],
  ]) {
    expect(await stage().admin(args)).toMatchObject({ code: 0, err: '' });
  }
  const added = await stage().admin([
    'deal-file',
    'add',
    ...['--group', String(group), '--deal', '1', '--path', join(scratch, 'deal.pdf')],
  ]);
  expect(added).toMatchObject({ code: 0, err: '' });
  const { id } = JSON.parse(added.out) as { id: number };
  return {
    path: `${String(group)}/1/${String(id)}`,
    room: `local:v1:group:${String(group)}:deal:1`,
  };
}

/** Runs an example's demo as a user, and checks what it printed and what the API now holds. */
async function runExample(command: string, script: string, user: number) {
  const deal = await dealFileOf(user, user);
  const { stdout, stderr } = await run(
    command,
    [
      script,
      stage().url,
      await stage().token(user),
      join(scratch, small.name),
      join(scratch, large.name),
      ...['--deal-file', deal.path, '--room', deal.room],
    ],
    { timeout: waitLimit(60_000) },
  );
  expect(stderr, `printed:\n${stdout}`).toBe('');
  const ids = [...stdout.matchAll(/^upload: .* is file (\d+),/gm)].map((m) => Number(m[1]));
  const held = small.bytes.length + large.bytes.length;
  expect(stdout.replace(/file \d+/g, 'file N').replace(/\d+ characters/, 'N characters')).toBe(
    [
      `upload: ${small.name} is file N, ${String(small.bytes.length)} bytes (multipart)`,
      `upload: ${large.name} is file N, ${String(large.bytes.length)} bytes (direct)`,
      'list: 2 files',
      `usage: files 2 used, 0 reserved, ${String(MAX_FILES)} allowed;` +
        ` bytes ${String(held)} used, 0 reserved, ${String(MAX_BYTES)} allowed`,
      `download: file N, the same bytes, SHA-256 ${base64Sha256(small.bytes)}`,
      `download: file N, the same bytes, SHA-256 ${base64Sha256(large.bytes)}`,
      'notify: queued, 2 files',
      'update deal file: file N of deal 1 is financials',
      'realtime token: 1 rooms, N characters',
      '',
    ].join('\n'),
  );

  // Through the API: both files listed, and the bytes downloaded are the bytes sent, with the
  // digest the examples checked them against.
  const listed = (await (await stage().request('/api/v1/user/me/file', { as: user })).json()) as {
    id: number;
    name: string;
    filesize: number;
  }[];
  expect(
    listed.map(({ id, name, filesize }) => ({ id, name, filesize })).sort((a, b) => a.id - b.id),
  ).toEqual(
    [
      { id: ids[0], name: small.name, filesize: small.bytes.length },
      { id: ids[1], name: large.name, filesize: large.bytes.length },
    ].sort((a, b) => (a.id ?? 0) - (b.id ?? 0)),
  );
  for (const [index, sent] of [small.bytes, large.bytes].entries()) {
    const redirect = await stage().download(user, String(ids[index]));
    expect(redirect.headers.get('x-checksum-sha256')).toBe(base64Sha256(sent));
    const object = await fetch(redirect.headers.get('location') ?? '');
    expect(sha256(new Uint8Array(await object.arrayBuffer()))).toBe(sha256(sent));
  }
}

/** What the API itself answers a notify without files: FastAPI's 422. */
async function emptyNotifyRefusal(user: number) {
  const answer = await stage().request('/api/v1/user/me/file/notify', {
    as: user,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file_ids: [] }),
  });
  const refusal = { status: answer.status, body: await answer.json() };
  expect(refusal).toMatchObject({
    status: 422,
    body: { detail: [{ type: 'too_short', loc: ['body', 'file_ids'] }] },
  });
  return refusal;
}

describe('the client examples, against the local stage', () => {
  // First: the demos' notifications are delivered in the background, changing what is stored.
  it('the Python client raises a refusal’s status and FastAPI body, and QuotaExceeded', async () => {
    // The user's first usage count is written by the first call that needs it.
    expect(await (await stage().request('/api/v1/user/me/usage', { as: 9303 })).json()).toEqual(
      noUsage,
    );
    const before = await stage().stored();
    // -B: no __pycache__ left in examples/.
    const { stdout } = await run('python3', [
      '-B',
      '-c',
      [
        'import json, sys',
        "sys.path.insert(0, 'examples/python')",
        'from file_service_client import FileServiceClient, FileServiceError, QuotaExceeded',
        'client = FileServiceClient(sys.argv[1], sys.argv[2])',
        'try:',
        '    client.notify([])',
        'except FileServiceError as refused:',
        '    print(json.dumps({"status": refused.status, "body": refused.body}))',
        'try:',
        '    client.upload(b"x" * (int(sys.argv[3]) + 1))',
        'except QuotaExceeded as over:',
        '    print(json.dumps({"status": over.status, "detail": over.detail}))',
      ].join('\n'),
      stage().url,
      await stage().token(9303),
      String(MAX_BYTES),
    ]);
    const [refused, over] = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(refused).toEqual(await emptyNotifyRefusal(9303));
    expect(over).toEqual({ status: 403, detail: overBytes });
    expect(await stage().stored()).toEqual(before);
  });

  it('the TypeScript client raises a refusal’s status and FastAPI body, and QuotaExceededError', async () => {
    const client = new FileServiceClient(stage().url, await stage().token(9304));
    // The user's first usage count is written by the first call that needs it.
    expect(await client.usage()).toEqual(noUsage);
    const before = await stage().stored();
    const thrown: unknown = await client.notify([]).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(FileServiceError);
    expect(thrown).not.toBeInstanceOf(QuotaExceededError);
    expect(thrown).toMatchObject(await emptyNotifyRefusal(9304));
    const over: unknown = await client
      .upload(new Uint8Array(MAX_BYTES + 1))
      .catch((error: unknown) => error);
    expect(over).toBeInstanceOf(QuotaExceededError);
    expect(over).toMatchObject({ status: 403, detail: overBytes, body: { detail: overBytes } });
    expect(await stage().stored()).toEqual(before);
  });

  it(
    'python3 examples/python/file_service_client.py: every route, both upload paths',
    () => runExample('python3', PYTHON, 9301),
    waitLimit(60_000),
  );

  it(
    'node examples/typescript/demo.ts: every route, both upload paths',
    () => runExample(process.execPath, TYPESCRIPT, 9302),
    waitLimit(60_000),
  );

  it.each([
    { script: PYTHON, command: 'python3', user: 9305 },
    { script: TYPESCRIPT, command: process.execPath, user: 9306 },
  ])(
    '$script: over the quota, the demo stops with the service’s detail',
    async ({ script, command, user }) => {
      const files = Array.from({ length: MAX_FILES + 1 }, () => join(scratch, small.name));
      const failed = await run(command, [script, stage().url, await stage().token(user), ...files])
        .then(() => undefined)
        .catch((error: unknown) => error as { code: number; stdout: string; stderr: string });
      expect(failed).toMatchObject({ code: 1, stderr: `over quota: ${overFiles}\n` });
      expect(failed?.stdout.match(/^upload: /gm)).toHaveLength(MAX_FILES);
      const usage = await stage().request('/api/v1/user/me/usage', { as: user });
      expect(await usage.json()).toMatchObject({
        files: { used: MAX_FILES, reserved: 0 },
        bytes: { used: MAX_FILES * small.bytes.length, reserved: 0 },
      });
    },
    waitLimit(30_000),
  );

  it('both clients refuse downloaded bytes that are not the recorded SHA-256', async () => {
    const client = new FileServiceClient(stage().url, await stage().token(9307));
    const file = await client.upload(small.bytes, { name: small.name });
    // Once the malware scan has cleared it (asked sooner than the client's Retry-After waits):
    expect((await stage().download(9307, file.id)).status).toBe(302);
    // Other bytes under the file's key, as a corrupted or tampered object would be.
    const other = Buffer.from('Q3 notes, version 2\n');
    const key = `users/9307/files/${String(file.id)}`;
    await stage().s3.send(new PutObjectCommand({ Bucket: stage().bucket, Key: key, Body: other }));
    // S3 serves it once the malware scan has tagged it clean.
    await eventually(async () => {
      const { TagSet = [] } = await stage().s3.send(
        new GetObjectTaggingCommand({ Bucket: stage().bucket, Key: key }),
      );
      return TagSet.some((tag) => tag.Value === 'NO_THREATS_FOUND') || undefined;
    });
    const mismatch = `download: file ${String(file.id)}: the bytes' SHA-256 is ${base64Sha256(other)}, not ${base64Sha256(small.bytes)}`;
    const thrown: unknown = await client.download(file.id).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ChecksumMismatchError);
    expect(thrown).toHaveProperty('message', mismatch);
    const { stdout } = await run('python3', [
      '-B',
      '-c',
      [
        'import sys',
        "sys.path.insert(0, 'examples/python')",
        'from file_service_client import ChecksumMismatch, FileServiceClient',
        'try:',
        '    FileServiceClient(sys.argv[1], sys.argv[2]).download(int(sys.argv[3]))',
        'except ChecksumMismatch as mismatch:',
        '    print(mismatch)',
      ].join('\n'),
      stage().url,
      await stage().token(9307),
      String(file.id),
    ]);
    expect(stdout).toBe(`${mismatch}\n`);
  });
});
