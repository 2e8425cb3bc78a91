import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '#infra/admin/run-admin.ts';
import { DEFAULT_DATA_DIR, dataFolder, REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { stageRecordPath } from '#infra/local/stage/stage-lock.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'data-folder-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('which data folder npm start and the CLIs use: LOCAL_DATA_DIR, else .data/', () => {
  it('LOCAL_DATA_DIR when set, made absolute', () => {
    expect(dataFolder({ LOCAL_DATA_DIR: join(root, 'mine') })).toBe(join(root, 'mine'));
    expect(dataFolder({ LOCAL_DATA_DIR: 'relative' })).toBe(resolve('relative'));
  });

  it('.data/ when it is not set, or blank', () => {
    expect(dataFolder({})).toBe(DEFAULT_DATA_DIR);
    expect(dataFolder({ LOCAL_DATA_DIR: ' ' })).toBe(DEFAULT_DATA_DIR);
    expect(DEFAULT_DATA_DIR).toBe(join(REPOSITORY_ROOT, '.data'));
  });

  it('a stage running on another folder is not looked for: the operator CLI says how to reach it', async () => {
    const theirs = join(root, 'theirs');
    await mkdir(theirs);
    await writeFile(
      stageRecordPath(theirs),
      JSON.stringify({ pid: process.pid, url: 'http://localhost:8102' }),
    );
    const mine = join(root, 'mine');
    const err: string[] = [];
    const code = await runAdmin(['deal-file', 'list', '--group', '1', '--deal', '1'], {
      env: { LOCAL_DATA_DIR: mine },
      out: () => undefined,
      err: (text) => err.push(text),
    });
    expect({ code, err }).toEqual({
      code: 1,
      err: [
        `admin: deal-file list: no local stage runs on ${mine}; start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started (or name a deployed stage with --stage development|production); nothing was changed`,
      ],
    });
  });
});

/**
 * `keepDataFolderPrivate` as `npm start` calls it, in a process of its own under umask 022 (a
 * developer's shell's, and what left `.data/` 0755 and its files 0644, issue 41); then a stage
 * record, written as the stage writes it. Answers every mode.
 */
async function keepPrivateUnder022(dataDir: string) {
  const module = (name: string) =>
    JSON.stringify(pathToFileURL(join(REPOSITORY_ROOT, 'infra/local/stage', name)).href);
  const script = `
    process.umask(0o022);
    const { keepDataFolderPrivate } = await import(${module('data-folder.ts')});
    const { writeStageRecord } = await import(${module('stage-lock.ts')});
    const dataDir = process.argv.at(-1);
    const was = await keepDataFolderPrivate(dataDir);
    await writeStageRecord(dataDir, { pid: process.pid, url: 'http://localhost:8000' });
    process.stdout.write(JSON.stringify({ was: was ?? null }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, dataDir],
    { env: { PATH: process.env.PATH ?? '' } },
  );
  const answered = JSON.parse(stdout) as { was: number | null };
  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
  return {
    ...answered,
    folder: await modeOf(dataDir),
    record: await modeOf(stageRecordPath(dataDir)),
  };
}

describe('the data folder is its owner’s alone (issue 41)', () => {
  it('is made 0700 under umask 022, and what the stage writes in it is 0600', async () => {
    expect(await keepPrivateUnder022(join(root, 'new', 'data'))).toEqual({
      was: null,
      folder: 0o700,
      record: 0o600,
    });
  });

  it('an existing 0755 folder is tightened to 0700, and its mode before is answered', async () => {
    const dataDir = join(root, 'data');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    const modes = await keepPrivateUnder022(dataDir);
    expect({ was: modes.was, folder: modes.folder }).toEqual({ was: 0o755, folder: 0o700 });
  });

  it('a folder already 0700 is left as it is, and nothing is said of it', async () => {
    const dataDir = join(root, 'data');
    await mkdir(dataDir);
    await chmod(dataDir, 0o700);
    expect(await keepPrivateUnder022(dataDir)).toMatchObject({ was: null, folder: 0o700 });
  });
});
