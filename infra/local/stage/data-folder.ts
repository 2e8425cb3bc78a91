/**
 * Where the local stage keeps its data, and which folder a CLI works on. `npm start` may run
 * with LOCAL_DATA_DIR set for it alone, so each one also registers under the stage home, where
 * a CLI started without the variable finds the one stage that runs.
 */
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isAlive, readStageRecord, runningStage } from './stage-lock.ts';

/** The checkout's root: where `npm start` and the CLIs run from. */
export const REPOSITORY_ROOT = resolve(import.meta.dirname, '../../..');

export const DEFAULT_DATA_DIR = join(REPOSITORY_ROOT, '.data');

/**
 * The folder that plays `.data/`'s part (LOCAL_STAGE_HOME moves it): the data folder unless
 * LOCAL_DATA_DIR is set, and where stages register, so a test's `npm start` never meets a
 * developer's in the same checkout.
 */
export function stageHome(env: Readonly<Record<string, string | undefined>>): string {
  const given = env.LOCAL_STAGE_HOME?.trim();
  return given === undefined || given === '' ? DEFAULT_DATA_DIR : resolve(given);
}

/**
 * Keeps the data folder to its owner (issue 41): 0700, and umask 077 for this process and all
 * it starts, so a file moved out of it stays private. Resolves with a looser mode it had.
 */
export async function keepDataFolderPrivate(dataDir: string): Promise<number | undefined> {
  process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const was = (await stat(dataDir)).mode & 0o777;
  if ((was & 0o077) === 0) return undefined;
  await chmod(dataDir, 0o700);
  return was;
}

/** One running `npm start`, as it registers itself. */
export interface RegisteredStage {
  readonly pid: number;
  readonly url: string;
  readonly dataDir: string;
}

/** More than one stage runs and nothing says which: the CLI must not guess. */
export class AmbiguousDataFolder extends Error {}

const registryOf = (home: string) => join(home, 'running-stages');

/** Registers a running stage; the returned function takes the registration back. */
export async function registerRunningStage(
  home: string,
  stage: RegisteredStage,
): Promise<() => Promise<void>> {
  await mkdir(registryOf(home), { recursive: true });
  const file = join(registryOf(home), `${String(stage.pid)}.json`);
  await writeFile(file, JSON.stringify(stage));
  return () => rm(file, { force: true });
}

/** The registered stages still running; registrations of dead ones are removed. */
async function liveRegisteredStages(home: string): Promise<RegisteredStage[]> {
  const names = await readdir(registryOf(home)).catch(() => []);
  const live: RegisteredStage[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = join(registryOf(home), name);
    const stage = await readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as RegisteredStage)
      .catch(() => undefined);
    if (stage === undefined) continue;
    // Its folder's own record must name it too: a pid reused after a kill -9 is not it.
    if (isAlive(stage.pid) && (await readStageRecord(stage.dataDir))?.pid === stage.pid) {
      live.push(stage);
    } else await rm(file, { force: true });
  }
  return live;
}

export interface DataFolderChoice {
  readonly dataDir: string;
  /** Said to the user when the folder was found rather than given. */
  readonly notice?: string;
}

/**
 * LOCAL_DATA_DIR when set; else the stage home when a stage holds it; else the one registered
 * stage that runs; else the stage home (no stage runs).
 */
export async function chooseDataFolder(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): Promise<DataFolderChoice> {
  const given = env.LOCAL_DATA_DIR?.trim();
  if (given !== undefined && given !== '') return { dataDir: resolve(given) };
  if ((await runningStage(home)) !== undefined) return { dataDir: home };
  const elsewhere = (await liveRegisteredStages(home))
    .filter((stage) => resolve(stage.dataDir) !== resolve(home))
    .sort((a, b) => a.url.localeCompare(b.url));
  const [only, ...others] = elsewhere;
  if (only === undefined) return { dataDir: home };
  if (others.length > 0) {
    const list = elsewhere.map((s) => `  ${s.url}  LOCAL_DATA_DIR=${s.dataDir}`).join('\n');
    throw new AmbiguousDataFolder(
      `${String(elsewhere.length)} local stages are running; set LOCAL_DATA_DIR to the one you mean:\n${list}`,
    );
  }
  return {
    dataDir: resolve(only.dataDir),
    notice: `using the running local stage at ${only.url} (data folder ${only.dataDir})`,
  };
}
