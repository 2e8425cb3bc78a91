import { statSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import {
  parseKeySet,
  type RealtimeKeySet,
  withNewKey,
} from '../../../shared/realtime/realtime-key-set.ts';
import type { RealtimeKeyStore } from '../../../shared/realtime/realtime-key-store.ts';
import { createOnce, writeBeside } from '../stage-credentials.ts';

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
    await rename(await writeBeside(this.path, JSON.stringify(set, null, 2)), this.path);
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

  /** Inode, size and mtime; a synchronous stat, as libuv's pool delayed every token request. */
  private version(): string | undefined {
    const info = statSync(this.path, { throwIfNoEntry: false });
    return info && `${info.ino}:${info.size}:${info.mtimeMs}`;
  }
}
