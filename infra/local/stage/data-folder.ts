/**
 * Which data folder a CLI (token, admin) works on. `npm start` may run with LOCAL_DATA_DIR set
 * for it alone; each `npm start` therefore also registers itself under the default folder,
 * so a CLI started without the variable still finds the one stage that runs.
 */
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isAlive, readStageRecord, runningStage } from './stage-lock.ts';

/**
 * Keeps the data folder to its owner (issue 41): made 0700, or tightened to it, so that users'
 * objects, the table and the chat log beneath are out of other accounts' reach whatever their
 * own modes. From here on this process, and every process it starts, makes files 0600 and
 * folders 0700 (umask 077): a file moved or archived out of it (`mv`, `tar`) stays private.
 * Resolves with the mode the folder had when it was looser, for `npm start` to say so.
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

const registryOf = (defaultDir: string) => join(defaultDir, 'running-stages');

/** Registers a running stage; the returned function takes the registration back. */
export async function registerRunningStage(
  defaultDir: string,
  stage: RegisteredStage,
): Promise<() => Promise<void>> {
  const registry = registryOf(defaultDir);
  await mkdir(registry, { recursive: true });
  const file = join(registry, `${String(stage.pid)}.json`);
  await writeFile(file, JSON.stringify(stage));
  return () => rm(file, { force: true });
}

/** The registered stages still running; registrations of dead ones are removed. */
async function liveRegisteredStages(defaultDir: string): Promise<RegisteredStage[]> {
  const registry = registryOf(defaultDir);
  let names: string[];
  try {
    names = await readdir(registry);
  } catch {
    return [];
  }
  const live: RegisteredStage[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const file = join(registry, name);
    let stage: RegisteredStage;
    try {
      stage = JSON.parse(await readFile(file, 'utf8')) as RegisteredStage;
    } catch {
      continue;
    }
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
 * LOCAL_DATA_DIR when set; else the default folder when a stage holds it; else the one
 * registered stage that runs; else the default folder (no stage runs).
 */
export async function chooseDataFolder(
  env: Readonly<Record<string, string | undefined>>,
  defaultDir: string,
): Promise<DataFolderChoice> {
  const given = env.LOCAL_DATA_DIR?.trim();
  if (given !== undefined && given !== '') return { dataDir: resolve(given) };
  if ((await runningStage(defaultDir)) !== undefined) return { dataDir: defaultDir };
  const elsewhere = (await liveRegisteredStages(defaultDir))
    .filter((stage) => resolve(stage.dataDir) !== resolve(defaultDir))
    .sort((a, b) => a.url.localeCompare(b.url));
  const [only, ...others] = elsewhere;
  if (only === undefined) return { dataDir: defaultDir };
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
