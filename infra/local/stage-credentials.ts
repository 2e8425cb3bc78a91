import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import type { Credentials } from './sigv4-check.ts';

/**
 * The stage's AWS credentials, which its object store and Invoke API check every signature
 * against. The secret is random (a well-known one would let any web page sign a form), made on
 * a data folder's first start and kept there, readable by its owner alone; the CLIs read it.
 * The access key id stays `S3RVER`, as data folders from before keep it.
 */
const STORED = z.object({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(20) });

/** New credentials with a random secret: 240 bits, as base64url. */
export const newCredentials = (): Credentials => ({
  accessKeyId: 'S3RVER',
  secretAccessKey: randomBytes(30).toString('base64url'),
});

/**
 * The releaser's, made from the stage's secret: the store's scan hold admits them as a
 * deployed bucket's policy admits the releaser role (held-file commands, reconcile).
 */
export const releaserCredentials = (stage: Credentials): Credentials => ({
  accessKeyId: 'RELEASER',
  secretAccessKey: createHmac('sha256', stage.secretAccessKey).update('releaser').digest('hex'),
});

/** Ignores the one filesystem error `code` (ENOENT, EEXIST), throws any other. */
export const unless = (code: string) => (error: unknown) => {
  if ((error as NodeJS.ErrnoException).code !== code) throw error;
};

/** `text` in a new file beside `path` (0600, the folder made 0700), to link or move into place. */
export async function writeBeside(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const partial = `${path}.${randomUUID()}.tmp`;
  await writeFile(partial, text, { mode: 0o600, flag: 'wx' });
  return partial;
}

/**
 * Writes `text` to `path` unless a file is there. A link appears whole, and only where no
 * file is: when two processes race, the first one's file wins.
 */
export async function createOnce(path: string, text: string): Promise<void> {
  const partial = await writeBeside(path, text);
  await link(partial, path)
    .catch(unless('EEXIST'))
    .finally(() => unlink(partial));
}

/** The data folder's credentials, made on first use. */
export async function stageCredentials(dataDir: string): Promise<Credentials> {
  const existing = await readStageCredentials(dataDir);
  if (existing !== undefined) return existing;
  const file = join(dataDir, 'credentials.json');
  // Two first starts agree on one secret.
  await createOnce(file, JSON.stringify(newCredentials(), null, 2));
  return (await readStageCredentials(dataDir)) ?? Promise.reject(new Error(`${file} not made`));
}

/** The data folder's credentials, or undefined when no stage has run on it yet. */
export async function readStageCredentials(dataDir: string): Promise<Credentials | undefined> {
  const file = join(dataDir, 'credentials.json');
  const text = await readFile(file, 'utf8').catch(unless('ENOENT'));
  if (text === undefined) return undefined;
  const parsed = STORED.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} holds no credentials: delete it to make new ones`);
  return parsed.data;
}
