import { resolve } from 'node:path';
import { DEFAULT_DATA_DIR } from './paths.ts';

/**
 * The folder that plays `.data/`'s part: the data folder when LOCAL_DATA_DIR is not set, and
 * where each `npm start` registers so that a CLI started without LOCAL_DATA_DIR finds it.
 * LOCAL_STAGE_HOME moves it, so a stage and the CLIs that share that variable see only each
 * other: a test's `npm start` never meets a developer's, or another test run's, in the same
 * checkout.
 */
export function stageHome(env: Readonly<Record<string, string | undefined>>): string {
  const given = env.LOCAL_STAGE_HOME?.trim();
  return given === undefined || given === '' ? DEFAULT_DATA_DIR : resolve(given);
}
