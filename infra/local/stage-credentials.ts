import { randomBytes, randomUUID } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { Credentials } from './sigv4-check.ts';

/**
 * The local stage's AWS credentials, which its object store and its Invoke API check every
 * signature against. A secret any web page could know (s3rver's `S3RVER`, which the stage once
 * ran) would let a page sign a form for any key itself, so the secret is random, made on a data
 * folder's first start and kept in it, readable by its owner alone; the CLIs read it from
 * there. The access key id stays `S3RVER`, as data folders from before keep it.
 */
const stageCredentialsFile = (dataDir: string): string => join(dataDir, 'credentials.json');

const STORED = z.object({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(20) });

/** New credentials with a random secret: 240 bits, as base64url. */
export const newCredentials = (): Credentials => ({
  accessKeyId: 'S3RVER',
  secretAccessKey: randomBytes(30).toString('base64url'),
});

/** The data folder's credentials, made on first use. */
export async function stageCredentials(dataDir: string): Promise<Credentials> {
  const existing = await readStageCredentials(dataDir);
  if (existing !== undefined) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = stageCredentialsFile(dataDir);
  const partial = `${file}.${randomUUID()}.tmp`;
  await writeFile(partial, JSON.stringify(newCredentials(), null, 2), { mode: 0o600, flag: 'wx' });
  try {
    // A link appears whole, and only where no file is: two first starts agree on one secret.
    await link(partial, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(partial);
  }
  const made = await readStageCredentials(dataDir);
  if (made === undefined) throw new Error(`${file} could not be made`);
  return made;
}

/** The data folder's credentials, or undefined when no stage has run on it yet. */
export async function readStageCredentials(dataDir: string): Promise<Credentials | undefined> {
  const file = stageCredentialsFile(dataDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = STORED.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file} holds no credentials: delete it to make new ones`);
  return parsed.data;
}
