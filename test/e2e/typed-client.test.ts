/**
 * The typed-client recipe of docs/api-reference.md, followed to the letter: the document from
 * `npm run openapi`, types from openapi-typescript, calls through openapi-fetch. The client
 * must typecheck, refuse a body the contract does not take, and work against the stage.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { toUserFileItem } from '#shared/storage/file-items.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const run = promisify(execFile);
const stage = useTestStage();
const dir = resolve('.test-artifacts/typed-client');
const USER = 9100;

const CLIENT = `import createClient from 'openapi-fetch';
import type { components, paths } from './file-service.d.ts';

export type UserFile = components['schemas']['UserFile'];

export const fileService = (baseUrl: string, token: string) =>
  createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });

export async function myFiles(baseUrl: string, token: string): Promise<UserFile[]> {
  const { data, error } = await fileService(baseUrl, token).GET('/api/v1/user/me/file');
  if (error !== undefined) throw new Error('listing failed');
  return data;
}

export async function roomToken(baseUrl: string, token: string, roomIds: string[]) {
  return fileService(baseUrl, token).POST('/api/v1/auth/get-realtime-token', {
    body: { room_ids: roomIds },
  });
}

export function notTheContract(baseUrl: string, token: string) {
  // @ts-expect-error: the notify body needs file_ids; the types know it.
  return fileService(baseUrl, token).POST('/api/v1/user/me/file/notify', { body: { files: [1] } });
}
`;

interface Client {
  myFiles(baseUrl: string, token: string): Promise<unknown[]>;
  roomToken(
    baseUrl: string,
    token: string,
    roomIds: string[],
  ): Promise<{ data?: { token: string }; error?: unknown; response: Response }>;
}
let client: Client;

beforeAll(async () => {
  await mkdir(dir, { recursive: true });
  const document = join(dir, 'openapi.json');
  await run('npm', ['run', '--silent', 'openapi', '--', '--out', document]);
  await run(resolve('node_modules/.bin/openapi-typescript'), [
    document,
    '-o',
    join(dir, 'file-service.d.ts'),
  ]);
  await writeFile(join(dir, 'client.ts'), CLIENT);
  client = (await import(join(dir, 'client.ts'))) as Client;
}, waitLimit(120_000));

describe('a client generated from /openapi.json', () => {
  it('typechecks, and refuses a body the contract does not take', async () => {
    // With the project's own compiler (npm run typecheck's), as a reader's tsc would. The
    // client's expected error must be there too: an unused directive fails the check.
    const compiler = resolve('node_modules/typescript-7/bin/tsc');
    const options = [
      '--ignoreConfig',
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--singleThreaded',
    ];
    const target = ['--target', 'es2022', '--lib', 'es2022,dom', '--module', 'nodenext'];
    const resolution = ['--moduleResolution', 'nodenext', '--allowImportingTsExtensions'];
    const problems = await run(process.execPath, [
      ...[compiler, ...options, ...target, ...resolution],
      join(dir, 'client.ts'),
    ]).then(
      ({ stdout }) => stdout,
      (error: unknown) => (error as { stdout: string }).stdout,
    );
    expect(problems).toBe('');
  });

  it('lists files and gets a token from the stage', async () => {
    const file = {
      id: 1,
      userId: USER,
      name: 'typed.pdf',
      type: 'deck' as const,
      createdAt: '2026-11-21T08:00:00.000Z',
      updatedAt: null,
      isArchived: false,
      filesize: 10,
      location: `users/${String(USER)}/files/1`,
    };
    await stage().put([toUserFileItem(file)]);
    const token = await stage().token(USER);
    expect(await client.myFiles(stage().url, token)).toEqual([
      {
        name: 'typed.pdf',
        id: 1,
        user_id: USER,
        type: 'deck',
        created_at: '2026-11-21T08:00:00.000Z',
        updated_at: null,
        is_archived: false,
        filesize: 10,
        location: `users/${String(USER)}/files/1`,
      },
    ]);
    const general = await client.roomToken(stage().url, token, []);
    expect(general.response.status).toBe(200);
    expect(general.data?.token).toMatch(/^eyJ/);
  });
});

describe('npm run openapi', () => {
  it('refuses a flag it does not know, with its usage, and writes nothing', async () => {
    const refused = await run(process.execPath, [
      'infra/render/openapi-cli.ts',
      '--outt',
      'x.json',
    ]).then(
      () => undefined,
      (error: unknown) => error as { code: number; stdout: string; stderr: string },
    );
    expect(refused?.code).toBe(2);
    await expect(access('x.json')).rejects.toThrow();
    expect(refused?.stdout).toBe('');
    expect(refused?.stderr).toBe(
      'openapi: unknown option --outt\n\nusage: npm run --silent openapi [-- --out <file>]\n',
    );
  });
});
