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
