/**
 * The client examples in examples/, run as a client runs them, against one local stage: the
 * Python one (standard library only) with python3, the TypeScript one with the project's
 * node. Each uploads a small file (multipart) and one just above the multipart limit (the
 * direct upload), lists, downloads, notifies, updates a deal file and gets a realtime token;
 * the files are then checked through the API.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { API_ROUTES } from '#functions/service-functions.ts';
import { MULTIPART_UPLOAD_MAX_FILE_BYTES } from '#infra/local/platform-limits.ts';
import { patient } from '#test/support/patience.ts';
import { useTestStage } from '#test/support/test-stage.ts';
import {
  FileServiceClient,
  FileServiceError,
} from '../../examples/typescript/file-service-client.ts';

const run = promisify(execFile);
const stage = useTestStage();
const scratch = resolve('.test-artifacts/client-examples');
const PYTHON = 'examples/python/file_service_client.py';
const TYPESCRIPT = 'examples/typescript/demo.ts';

const small = { name: 'notes.txt', bytes: Buffer.from('Q3 notes, version 1\n') };
/** One byte over the multipart limit the examples share with the docs: the direct upload. */
const large = { name: 'model.bin', bytes: randomBytes(MULTIPART_UPLOAD_MAX_FILE_BYTES + 1) };
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

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
    { timeout: patient(60_000) },
  );
  expect(stderr, `printed:\n${stdout}`).toBe('');
  const ids = [...stdout.matchAll(/^upload: .* is file (\d+),/gm)].map((m) => Number(m[1]));
  expect(stdout.replace(/file \d+/g, 'file N').replace(/\d+ characters/, 'N characters')).toBe(
    [
      `upload: ${small.name} is file N, ${String(small.bytes.length)} bytes (multipart)`,
      `upload: ${large.name} is file N, ${String(large.bytes.length)} bytes (direct)`,
      'list: 2 files',
      'download: file N, the same bytes',
      'download: file N, the same bytes',
      'notify: queued, 2 files',
      'update deal file: file N of deal 1 is financials',
      'realtime token: 1 rooms, N characters',
      '',
    ].join('\n'),
  );

  // Through the API: both files listed, and the bytes downloaded are the bytes sent.
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
  it('the Python client raises a refusal’s status and FastAPI body', async () => {
    const before = await stage().stored();
    // -B: no __pycache__ left in examples/.
    const { stdout } = await run('python3', [
      '-B',
      '-c',
      [
        'import json, sys',
        "sys.path.insert(0, 'examples/python')",
        'from file_service_client import FileServiceClient, FileServiceError',
        'try:',
        '    FileServiceClient(sys.argv[1], sys.argv[2]).notify([])',
        'except FileServiceError as refused:',
        '    print(json.dumps({"status": refused.status, "body": refused.body}))',
      ].join('\n'),
      stage().url,
      await stage().token(9303),
    ]);
    expect(JSON.parse(stdout)).toEqual(await emptyNotifyRefusal(9303));
    expect(await stage().stored()).toEqual(before);
  });

  it('the TypeScript client raises a refusal’s status and FastAPI body', async () => {
    const before = await stage().stored();
    const client = new FileServiceClient(stage().url, await stage().token(9304));
    const thrown: unknown = await client.notify([]).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(FileServiceError);
    expect(thrown).toMatchObject(await emptyNotifyRefusal(9304));
    expect(await stage().stored()).toEqual(before);
  });

  it(
    'python3 examples/python/file_service_client.py: every route, both upload paths',
    () => runExample('python3', PYTHON, 9301),
    patient(60_000),
  );

  it(
    'node examples/typescript/demo.ts: every route, both upload paths',
    () => runExample(process.execPath, TYPESCRIPT, 9302),
    patient(60_000),
  );

  it('the TypeScript example’s types are generate-types.ts’s, from the service’s document', async () => {
    const document = join(scratch, 'openapi.json');
    const fresh = join(scratch, 'file-service.d.ts');
    await writeFile(document, JSON.stringify(buildOpenApiDocument(API_ROUTES)));
    await run(process.execPath, ['examples/typescript/generate-types.ts', document, fresh]);
    expect(
      await readFile(fresh, 'utf8'),
      'examples/typescript/file-service.d.ts is not the document’s: make it again (examples/README.md)',
    ).toBe(await readFile('examples/typescript/file-service.d.ts', 'utf8'));
  });
});
