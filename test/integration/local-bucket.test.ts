import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bucketNameAsLongAsDeployed,
  LEGACY_LOCAL_BUCKET,
  LOCAL_BUCKET,
  MAX_BUCKET_NAME_LENGTH,
  moveLegacyBucket,
} from '#infra/local/object-store/local-bucket.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});
const folder = async () => {
  const made = await mkdtemp(join(tmpdir(), 'local-bucket-'));
  folders.push(made);
  return made;
};
describe('the local bucket is named as long as a deployed one', () => {
  it('has 63 characters, as a CloudFormation-made name can, and so do test buckets', () => {
    expect(LOCAL_BUCKET).toHaveLength(MAX_BUCKET_NAME_LENGTH);
    expect(LOCAL_BUCKET).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
    const test = bucketNameAsLongAsDeployed('test-1a2b3c4d');
    expect(test).toHaveLength(MAX_BUCKET_NAME_LENGTH);
    expect(test).toMatch(/^test-1a2b3c4d-[a-z0-9-]*[a-z0-9]$/);
  });

  it('moves the old bucket of a data folder once, and never over the new one', async () => {
    const s3 = await folder();
    await mkdir(join(s3, LEGACY_LOCAL_BUCKET, 'users', '1', 'files'), { recursive: true });
    await writeFile(join(s3, LEGACY_LOCAL_BUCKET, 'users', '1', 'files', '2._S3rver_object'), 'x');
    expect(await moveLegacyBucket(s3)).toBe(true);
    expect(await readdir(s3)).toEqual([LOCAL_BUCKET]);
    expect(await moveLegacyBucket(s3)).toBe(false);
    await mkdir(join(s3, LEGACY_LOCAL_BUCKET));
    expect(await moveLegacyBucket(s3)).toBe(false);
    expect((await readdir(s3)).sort()).toEqual([LEGACY_LOCAL_BUCKET, LOCAL_BUCKET].sort());
  });
});
