import { join, resolve } from 'node:path';

/** The checkout's root: where `npm start` and the CLIs run from. */
export const REPOSITORY_ROOT = resolve(import.meta.dirname, '../../..');

/** Where the local stage keeps its data unless LOCAL_DATA_DIR says otherwise. */
export const DEFAULT_DATA_DIR = join(REPOSITORY_ROOT, '.data');
