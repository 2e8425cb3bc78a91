import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseKeySet, type RealtimeKeySet, withNewKey } from './realtime-key-set.ts';
import type { RealtimeKeyStore } from './realtime-key-store.ts';

/**
 * The local stage's keys: a JSON file in the data folder (mode 0600), made with one key on
 * first use. Read again whenever the file changes, so a rotation shows at once.
 */
export class FileKeyStore implements RealtimeKeyStore {
  private readonly path: string;
  private cached: { readonly mtimeMs: number; readonly set: RealtimeKeySet } | undefined;

  constructor(path: string) {
    this.path = path;
  }

  async load(): Promise<RealtimeKeySet> {
    const mtimeMs = await this.modified();
    if (mtimeMs === undefined) return this.create();
    if (this.cached?.mtimeMs === mtimeMs) return this.cached.set;
    const set = parseKeySet(await readFile(this.path, 'utf8'));
    if (set === undefined) throw new Error(`${this.path} holds no realtime key set`);
    this.cached = { mtimeMs, set };
    return set;
  }

  async save(set: RealtimeKeySet): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    // A whole file or none: readers never see half a key set.
    const partial = `${this.path}.${process.pid}.tmp`;
    await writeFile(partial, JSON.stringify(set, null, 2), { mode: 0o600 });
    await rename(partial, this.path);
  }

  private async create(): Promise<RealtimeKeySet> {
    const set = await withNewKey({ keys: [] }, new Date(), {
      activateInSeconds: 0,
      tokenSeconds: 0,
    });
    await mkdir(dirname(this.path), { recursive: true });
    try {
      // `wx`: when two processes start at once, the first file wins and both use it.
      await writeFile(this.path, JSON.stringify(set, null, 2), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return this.load();
  }

  private async modified(): Promise<number | undefined> {
    try {
      return (await stat(this.path)).mtimeMs;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
