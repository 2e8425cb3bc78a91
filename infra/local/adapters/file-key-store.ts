import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  parseKeySet,
  type RealtimeKeySet,
  withNewKey,
} from '../../../shared/realtime/realtime-key-set.ts';
import type { RealtimeKeyStore } from '../../../shared/realtime/realtime-key-store.ts';
import { createOnce } from '../stage-credentials.ts';

/**
 * The local stage's keys: a JSON file in the data folder (mode 0600), made with one key on
 * first use. Read again whenever the file changes, so a rotation shows at once.
 */
export class FileKeyStore implements RealtimeKeyStore {
  private readonly path: string;
  private cached: { readonly version: string; readonly set: RealtimeKeySet } | undefined;

  constructor(path: string) {
    this.path = path;
  }

  async load(): Promise<RealtimeKeySet> {
    const version = this.version();
    if (version === undefined) return this.create();
    if (this.cached?.version === version) return this.cached.set;
    const set = parseKeySet(await readFile(this.path, 'utf8'));
    if (set === undefined) throw new Error(`${this.path} holds no realtime key set`);
    this.cached = { version, set };
    return set;
  }

  async save(set: RealtimeKeySet): Promise<void> {
    // A whole file or none: readers never see half a key set.
    await rename(await this.written(set), this.path);
  }

  private async create(): Promise<RealtimeKeySet> {
    const set = await withNewKey({ keys: [] }, new Date(), {
      activateInSeconds: 0,
      tokenSeconds: 0,
    });
    // When two processes start at once, the first key set wins and both use it.
    await createOnce(this.path, JSON.stringify(set, null, 2));
    return this.load();
  }

  /** The set, written whole to a fresh file beside the key file, readable by us alone. */
  private async written(set: RealtimeKeySet): Promise<string> {
    await mkdir(dirname(this.path), { recursive: true });
    const partial = `${this.path}.${randomUUID()}.tmp`;
    await writeFile(partial, JSON.stringify(set, null, 2), { mode: 0o600, flag: 'wx' });
    return partial;
  }

  /** Inode, size and mtime; a synchronous stat, as libuv's pool delayed every token request. */
  private version(): string | undefined {
    try {
      const info = statSync(this.path);
      return `${info.ino}:${info.size}:${info.mtimeMs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
