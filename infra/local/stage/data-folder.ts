/**
 * Where the local stage keeps its data. `npm start` and every CLI read it the same way,
 * LOCAL_DATA_DIR or `.data/`, as every AWS tool reads AWS_PROFILE: nothing is guessed.
 */
import { chmod, mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The checkout's root: where `npm start` and the CLIs run from. */
export const REPOSITORY_ROOT = resolve(import.meta.dirname, '../../..');

export const DEFAULT_DATA_DIR = join(REPOSITORY_ROOT, '.data');

/**
 * The stage's table, and its bucket, named as long as a deployed one can be (63 characters,
 * made by CloudFormation): answers carry it (`s3://<bucket>/<key>`), and a shorter name would
 * let an answer near Lambda's 6 MB pass locally and fail deployed.
 */
export const LOCAL_TABLE = 'file-service';
export const LOCAL_BUCKET = 'local-file-service-bucket-with-a-name-as-long-as-a-deployed-one';

/** LOCAL_DATA_DIR when set, else `.data/`. */
export function dataFolder(env: Readonly<Record<string, string | undefined>>): string {
  const given = env.LOCAL_DATA_DIR?.trim();
  return given === undefined || given === '' ? DEFAULT_DATA_DIR : resolve(given);
}

/** What a CLI says when no `npm start` holds the folder it read. */
export const noStageRuns = (dataDir: string): string =>
  `no local stage runs on ${dataDir}; start one with npm start, or set LOCAL_DATA_DIR to the folder of the one you started`;

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
