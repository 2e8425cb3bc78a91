import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The local bucket's name is as long as a deployed one can be (63 characters, made by
 * CloudFormation): answers carry it (`s3://<bucket>/<key>`), and a shorter name would let an
 * answer near Lambda's 6 MB pass locally and fail deployed.
 */
export const MAX_BUCKET_NAME_LENGTH = 63;
export const LOCAL_BUCKET = 'local-file-service-bucket-with-a-name-as-long-as-a-deployed-one';
/** The local bucket's name before. */
export const LEGACY_LOCAL_BUCKET = 'file-service';

/** A bucket name that starts with `prefix`, as long as a deployed one (ending in no `-`). */
export function bucketNameAsLongAsDeployed(prefix: string): string {
  const name = `${prefix}-${'bucket-named-as-long-as-a-deployed-one-'.repeat(2)}`.slice(0, 63);
  return name.endsWith('-') ? `${name.slice(0, -1)}0` : name;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Renames a data folder's old bucket, once, before the store starts; never over the new one. */
export async function moveLegacyBucket(s3Directory: string): Promise<boolean> {
  const [legacy, current] = [
    join(s3Directory, LEGACY_LOCAL_BUCKET),
    join(s3Directory, LOCAL_BUCKET),
  ];
  if (!(await exists(legacy)) || (await exists(current))) return false;
  await rename(legacy, current);
  return true;
}
