/**
 * The local bucket's name is as long as a deployed one can be (63 characters, made by
 * CloudFormation): answers carry it (`s3://<bucket>/<key>`), and a shorter name would let an
 * answer near Lambda's 6 MB pass locally and fail deployed.
 */
export const LOCAL_BUCKET = 'local-file-service-bucket-with-a-name-as-long-as-a-deployed-one';

/** A bucket name that starts with `prefix`, as long as a deployed one (ending in no `-`). */
export function bucketNameAsLongAsDeployed(prefix: string): string {
  const name = `${prefix}-${'bucket-named-as-long-as-a-deployed-one-'.repeat(2)}`.slice(0, 63);
  return name.endsWith('-') ? `${name.slice(0, -1)}0` : name;
}
