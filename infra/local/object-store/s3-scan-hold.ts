import {
  SCAN_RELEASE_TAG,
  SCAN_RELEASED_VALUE,
  SCAN_STATUS_TAG,
  SCANNED_OBJECT_PREFIXES,
} from '#shared/storage/keys.ts';
import { splitTarget } from './s3-request-auth.ts';

/**
 * The files bucket's policy on the scanned prefixes, where the data stack writes it on AWS:
 * GetObject of an object under `users/` or `groups/` is denied unless its tags say GuardDuty
 * found it clean (`GuardDutyMalwareScanStatus=NO_THREATS_FOUND`) or an operator released it
 * (`FileServiceScanRelease=released`); no tag is a denial too. The object store's front
 * applies it to a signed GET (nothing else answers with the bytes). Not reproduced:
 * the roles it exempts (the local stage has one set of credentials; its scanner reads past
 * the front), HEAD and a copy's read of its source, and its deny on changing the tags.
 */

/** GET subresources answered with something other than the object's bytes. */
const NOT_THE_BYTES = new Set(['acl', 'tagging']);

/** The object a GET reads, when it is one the policy holds to its tags. */
export function heldDownload(
  method: string,
  url: string,
): { readonly bucket: string; readonly key: string } | undefined {
  if (method !== 'GET') return undefined;
  const { path, rawQuery } = splitTarget(url);
  if ([...new URLSearchParams(rawQuery).keys()].some((name) => NOT_THE_BYTES.has(name))) {
    return undefined;
  }
  let bucket: string;
  let objectKey: string;
  try {
    [bucket = '', objectKey = ''] = path
      .slice(1)
      .split(/\/(.*)/s)
      .map(decodeURIComponent);
  } catch {
    return undefined; // the store reads no object by a path it cannot decode
  }
  if (!SCANNED_OBJECT_PREFIXES.some((p) => objectKey.startsWith(p))) return undefined;
  return { bucket, key: objectKey };
}

/** Whether the object's tags (undefined: no object) admit a download. */
export const admitsDownload = (tags: ReadonlyMap<string, string> | undefined): boolean =>
  tags?.get(SCAN_STATUS_TAG) === 'NO_THREATS_FOUND' ||
  tags?.get(SCAN_RELEASE_TAG) === SCAN_RELEASED_VALUE;
