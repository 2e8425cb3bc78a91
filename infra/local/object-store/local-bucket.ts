import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The local stage's bucket. Answers carry the bucket's name (a file's `location` is
 * `s3://<bucket>/<key>`), and a deployed bucket's name, made by CloudFormation, can be as long
 * as S3 allows: 63 characters ("Bucket naming rules",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html). A shorter
 * local name would let an answer near Lambda's 6 MB limit pass locally and fail deployed.
 */
export const MAX_BUCKET_NAME_LENGTH = 63;
export const LOCAL_BUCKET = 'local-file-service-bucket-with-a-name-as-long-as-a-deployed-one';

/** The local bucket's name before it was made as long as a deployed one. */
export const LEGACY_LOCAL_BUCKET = 'file-service';

const FILLER = 'bucket-named-as-long-as-a-deployed-one-'.repeat(2);

/** A bucket name that starts with `prefix` and is as long as a deployed one can be. */
export function bucketNameAsLongAsDeployed(prefix: string): string {
  const name = `${prefix}-${FILLER}`.slice(0, MAX_BUCKET_NAME_LENGTH);
  // A bucket name ends with a letter or digit.
  return name.endsWith('-') ? `${name.slice(0, -1)}0` : name;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * A data folder from before keeps its objects in the old bucket: the store keeps a bucket as a
 * directory of that name under its own folder, so the directory is renamed, once, before
 * the store starts. Nothing is moved when the new bucket already exists.
 */
export async function moveLegacyBucket(s3Directory: string): Promise<boolean> {
  const legacy = join(s3Directory, LEGACY_LOCAL_BUCKET);
  const current = join(s3Directory, LOCAL_BUCKET);
  if (!(await exists(legacy)) || (await exists(current))) return false;
  await rename(legacy, current);
  return true;
}
