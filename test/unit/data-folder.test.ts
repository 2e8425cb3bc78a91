import { execFile, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '#infra/admin/run-admin.ts';
import {
  AmbiguousDataFolder,
  chooseDataFolder,
  registerRunningStage,
  DEFAULT_DATA_DIR,
  REPOSITORY_ROOT,
  stageHome,
} from '#infra/local/stage/data-folder.ts';
import { stageRecordPath } from '#infra/local/stage/stage-lock.ts';
import { cliEnvironment } from '#test/support/cli-environment.ts';

/** The pid of a process that has exited: a stage that died without cleaning up. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

let root: string;
let defaultDir: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'data-folder-'));
  defaultDir = join(root, 'default');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A stage that runs on `dataDir`: its record in the folder, and its registration. */
async function running(dataDir: string, url = 'http://localhost:8001', pid = process.pid) {
  await mkdir(dataDir, { recursive: true });
  await writeFile(stageRecordPath(dataDir), JSON.stringify({ pid, url }));
  return registerRunningStage(defaultDir, { pid, url, dataDir });
}

describe('which data folder a CLI works on', () => {
  it('LOCAL_DATA_DIR, when set, whatever runs', async () => {
    await running(join(root, 'elsewhere'));
    expect(await chooseDataFolder({ LOCAL_DATA_DIR: join(root, 'mine') }, defaultDir)).toEqual({
      dataDir: join(root, 'mine'),
    });
  });

  it('the default folder when a stage holds it', async () => {
    await running(join(root, 'elsewhere'));
    await running(defaultDir, 'http://localhost:8000');
    expect(await chooseDataFolder({}, defaultDir)).toEqual({ dataDir: defaultDir });
  });

  it('the one registered stage that runs, and it says so', async () => {
    await running(join(root, 'elsewhere'), 'http://localhost:8123');
    expect(await chooseDataFolder({ LOCAL_DATA_DIR: ' ' }, defaultDir)).toEqual({
      dataDir: join(root, 'elsewhere'),
      notice: `using the running local stage at http://localhost:8123 (data folder ${join(root, 'elsewhere')})`,
    });
  });

  it('refuses to guess between two running stages', async () => {
    await running(join(root, 'a'), 'http://localhost:8001', process.pid);
    await running(join(root, 'b'), 'http://localhost:8002', process.ppid);
    const choice = chooseDataFolder({}, defaultDir);
    await expect(choice).rejects.toThrow(AmbiguousDataFolder);
    await expect(choice).rejects.toThrow(
      `2 local stages are running; set LOCAL_DATA_DIR to the one you mean:\n` +
        `  http://localhost:8001  LOCAL_DATA_DIR=${join(root, 'a')}\n` +
        `  http://localhost:8002  LOCAL_DATA_DIR=${join(root, 'b')}`,
    );
  });

  it('the default folder when nothing runs; a dead stage is forgotten', async () => {
    await running(join(root, 'gone'), 'http://localhost:8009', deadPid());
    expect(await chooseDataFolder({}, defaultDir)).toEqual({ dataDir: defaultDir });
    expect(await readdir(join(defaultDir, 'running-stages'))).toEqual([]);
  });

  it('a live pid that is not the stage its folder records (a reused pid) is not that stage', async () => {
    await running(join(root, 'reused'), 'http://localhost:8010');
    await writeFile(stageRecordPath(join(root, 'reused')), JSON.stringify({ pid: deadPid() }));
    expect(await chooseDataFolder({}, defaultDir)).toEqual({ dataDir: defaultDir });
  });

  it('a registration taken back is gone', async () => {
    const unregister = await running(join(root, 'elsewhere'));
    await unregister();
    expect(await chooseDataFolder({}, defaultDir)).toEqual({ dataDir: defaultDir });
  });
});

describe('LOCAL_STAGE_HOME: the CLIs look for stages under it alone', () => {
  it('stands for .data/ when set, and is .data/ when not', () => {
    expect(stageHome({})).toBe(DEFAULT_DATA_DIR);
    expect(stageHome({ LOCAL_STAGE_HOME: ' ' })).toBe(DEFAULT_DATA_DIR);
    expect(stageHome({ LOCAL_STAGE_HOME: join(root, 'home') })).toBe(join(root, 'home'));
  });

  /** A live stage on `dataDir`, registered under `home` as `npm start` registers it. */
  async function runningUnder(home: string, dataDir: string, url: string) {
    await mkdir(dataDir, { recursive: true });
    await writeFile(stageRecordPath(dataDir), JSON.stringify({ pid: process.pid, url }));
    await registerRunningStage(home, { pid: process.pid, url, dataDir });
  }

  it('the token CLI finds the stage registered under its home, not one under another', async () => {
    const mine = join(root, 'mine');
    await runningUnder(join(root, 'home'), mine, 'http://localhost:8101');
    await runningUnder(join(root, 'other-home'), join(root, 'theirs'), 'http://localhost:8102');
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(REPOSITORY_ROOT, 'infra/local/cli/token-cli.ts'), '--user', '3'],
      { env: cliEnvironment({ LOCAL_STAGE_HOME: join(root, 'home') }) },
    );
    expect(stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(stderr).toBe(
      `token: using the running local stage at http://localhost:8101 (data folder ${mine})\n`,
    );
  });

  it('the operator CLI, with a stage registered under another home only, finds none', async () => {
    const home = join(root, 'home');
    await runningUnder(join(root, 'other-home'), join(root, 'theirs'), 'http://localhost:8102');
    const err: string[] = [];
    const code = await runAdmin(['deal-file', 'list', '--group', '1', '--deal', '1'], {
      env: { LOCAL_STAGE_HOME: home },
      out: () => undefined,
      err: (text) => err.push(text),
    });
    expect({ code, err }).toEqual({
      code: 1,
      err: [
        `admin: deal-file list: no local stage is running on ${home}: start one with \`npm start\` (or name a deployed stage with --stage development|production); nothing was changed`,
      ],
    });
  });
});

/**
 * `keepDataFolderPrivate` as `npm start` calls it, in a process of its own under umask 022 (a
 * developer's shell's, and what left `.data/` 0755 and its files 0644, issue 41); then a stage
 * record and a registration, written as the stage writes them. Answers every mode.
 */
async function keepPrivateUnder022(dataDir: string) {
  const module = (name: string) =>
    JSON.stringify(pathToFileURL(join(REPOSITORY_ROOT, 'infra/local/stage', name)).href);
  const script = `
    process.umask(0o022);
    const { keepDataFolderPrivate, registerRunningStage } = await import(${module('data-folder.ts')});
    const { writeStageRecord } = await import(${module('stage-lock.ts')});
    const dataDir = process.argv.at(-1);
    const was = await keepDataFolderPrivate(dataDir);
    await writeStageRecord(dataDir, { pid: process.pid, url: 'http://localhost:8000' });
    await registerRunningStage(dataDir, { pid: process.pid, url: 'http://localhost:8000', dataDir });
    process.stdout.write(JSON.stringify({ was: was ?? null, pid: process.pid }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script, dataDir],
    { env: { PATH: process.env.PATH ?? '' } },
  );
  const { pid, ...answered } = JSON.parse(stdout) as {
    was: number | null;
    pid: number;
  };
  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
  return {
    ...answered,
    folder: await modeOf(dataDir),
    record: await modeOf(stageRecordPath(dataDir)),
    registry: await modeOf(join(dataDir, 'running-stages')),
    registration: await modeOf(join(dataDir, 'running-stages', `${String(pid)}.json`)),
  };
}

describe('the data folder is its owner’s alone (issue 41)', () => {
  it('is made 0700 under umask 022, and what the stage writes in it is 0600, its folders 0700', async () => {
    expect(await keepPrivateUnder022(join(root, 'new', 'data'))).toEqual({
      was: null,
      folder: 0o700,
      record: 0o600,
      registry: 0o700,
      registration: 0o600,
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
