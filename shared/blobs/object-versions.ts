import type { BlobVersion, BlobVersions } from './blob-store.ts';

/**
 * Every version and delete marker the bucket keeps of one key. A listing by prefix names its
 * neighbours too (`…/files/12` lists `…/files/123`), so only the key itself is kept.
 */
export async function versionsOfKey(
  store: Pick<BlobVersions, 'versionsUnder'>,
  key: string,
): Promise<BlobVersion[]> {
  const versions: BlobVersion[] = [];
  for await (const page of store.versionsUnder(key)) {
    versions.push(...page.filter((version) => version.key === key));
  }
  return versions;
}

/**
 * Deletes every version the bucket keeps of one key, for good: a plain delete in a versioned
 * bucket only hides the bytes behind a marker, which an erased user's bytes must not outlive.
 */
export async function deleteEveryVersion(store: BlobVersions, key: string): Promise<void> {
  await store.deleteVersions(await versionsOfKey(store, key));
}
