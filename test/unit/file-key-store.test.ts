import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyStore } from '#infra/local/adapters/file-key-store.ts';
import { withNewKey } from '#shared/realtime/realtime-key-set.ts';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'key-store-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the local realtime key file', () => {
  it('is made once, whole, readable by its owner alone, when many load it at once', async () => {
    for (let trial = 0; trial < 20; trial++) {
      const path = join(folder, `race-${trial}`, 'signing-keys.json');
      const sets = await Promise.all(
        Array.from({ length: 8 }, () => new FileKeyStore(path).load()),
      );
      expect(new Set(sets.map((set) => JSON.stringify(set))).size).toBe(1);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(await readdir(join(folder, `race-${trial}`))).toEqual(['signing-keys.json']);
    }
  });

  it('shows a rotation saved by another process at once', async () => {
    const path = join(folder, 'rotate', 'signing-keys.json');
    const reader = new FileKeyStore(path);
    const first = await reader.load();
    const rotated = await withNewKey(first, new Date(), { activateInSeconds: 0, tokenSeconds: 0 });
    await new FileKeyStore(path).save(rotated);
    expect(await reader.load()).toEqual(rotated);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses a file that holds no key set, or a public key that carries a private part', async () => {
    const path = join(folder, 'bad', 'signing-keys.json');
    const store = new FileKeyStore(path);
    const set = await store.load();
    const [key] = set.keys;
    await writeFile(
      path,
      JSON.stringify({
        keys: [{ ...key, publicJwk: { ...key?.publicJwk, d: key?.privateJwk.d } }],
      }),
    );
    await expect(new FileKeyStore(path).load()).rejects.toThrow('holds no realtime key set');
  });
});
