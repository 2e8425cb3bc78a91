import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FilesystemStore } from 's3rver';

/**
 * A bucket's keys in S3's order, for the listings the local stage answers itself. s3rver
 * walks its folders in file-name order, which is not key order: `a-1` (file `a-1._S3rver_object`)
 * comes after `a/b` (folder `a`), so a page that resumes after a key can skip keys. S3 lists
 * keys in UTF-8 binary order ("List results are always returned in UTF-8 binary order", the
 * ListObjectsV2 reference).
 */

const OBJECT_FILE = '._S3rver_object';

const inUtf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Every key that starts with `prefix`, in S3's order. */
export async function keysUnder(
  store: FilesystemStore,
  bucket: string,
  prefix: string,
): Promise<string[]> {
  const bucketFolder = dirname(store.getResourcePath(bucket, 'any', 'object'));
  // Walk only the folders the prefix names, when they are plain folder names.
  const folders = prefix.split('/').slice(0, -1);
  const plain = folders.every((name) => name !== '' && name !== '.' && name !== '..');
  const base = plain && folders.length > 0 ? `${folders.join('/')}/` : '';
  const names: string[] = [];
  await collectObjectFiles(bucketFolder, base, names);
  return names
    .map((name) => name.slice(0, -OBJECT_FILE.length))
    .filter((key) => key.startsWith(prefix))
    .sort(inUtf8Order);
}

/** Object files under `relative`; a folder deleted meanwhile (s3rver drops empty ones) has none. */
async function collectObjectFiles(root: string, relative: string, into: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, relative), { withFileTypes: true });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) await collectObjectFiles(root, `${relative}${entry.name}/`, into);
    else if (entry.name.endsWith(OBJECT_FILE)) into.push(`${relative}${entry.name}`);
  }
}

/** A key, or keys rolled up under a common prefix (they count as one, as S3 counts them). */
export type Listed = { readonly key: string } | { readonly commonPrefix: string };

/**
 * One page of `keys` (sorted, all under `prefix`): up to `maxKeys` entries after `after` (a
 * key, or every key under a common prefix), keys rolled up at `delimiter`, and whether any
 * entry is left for a next page.
 */
export function pageOf(
  keys: readonly string[],
  options: {
    readonly prefix: string;
    readonly delimiter?: string;
    readonly after?: Listed;
    readonly maxKeys: number;
  },
): { readonly listed: Listed[]; readonly isTruncated: boolean } {
  const { prefix, delimiter, after, maxKeys } = options;
  const listed: Listed[] = [];
  // Nothing asked for, nothing left out: S3 answers max-keys=0 untruncated.
  if (maxKeys <= 0) return { listed, isTruncated: false };
  let lastPrefix: string | undefined;
  for (const key of keys) {
    if (after !== undefined && !isAfter(key, after)) continue;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const entry: Listed =
      delimiter && cut !== -1 ? { commonPrefix: key.slice(0, cut + delimiter.length) } : { key };
    if ('commonPrefix' in entry) {
      if (entry.commonPrefix === lastPrefix) continue;
      lastPrefix = entry.commonPrefix;
    }
    if (listed.length === maxKeys) return { listed, isTruncated: true };
    listed.push(entry);
  }
  return { listed, isTruncated: false };
}

function isAfter(key: string, after: Listed): boolean {
  if ('key' in after) return inUtf8Order(key, after.key) > 0;
  return inUtf8Order(key, after.commonPrefix) > 0 && !key.startsWith(after.commonPrefix);
}

/** A listed object as S3 describes it. */
export interface ListedObject {
  readonly key: string;
  readonly lastModified: string;
  readonly etag: string;
  readonly size: number;
}

/** The objects `listed` names (not its common prefixes); one deleted meanwhile is left out. */
export async function objectsOf(
  store: FilesystemStore,
  bucket: string,
  listed: readonly Listed[],
): Promise<ListedObject[]> {
  const found = await Promise.all(
    listed.map(async (entry) => {
      if (!('key' in entry)) return [];
      try {
        const metadata = await store.getMetadata(bucket, entry.key);
        return [
          {
            key: entry.key,
            lastModified: new Date(String(metadata['last-modified'])).toISOString(),
            etag: String(metadata.etag),
            size: Number(metadata['content-length']),
          },
        ];
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ENOENT') return [];
        throw error;
      }
    }),
  );
  return found.flat();
}
