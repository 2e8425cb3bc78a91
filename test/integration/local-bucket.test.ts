import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import {
  ensureBucket,
  LOCAL_REGION,
  s3ClientOptions,
  startObjectStore,
} from '#infra/local/stage/emulators.ts';
import {
  bucketNameAsLongAsDeployed,
  LEGACY_LOCAL_BUCKET,
  LOCAL_BUCKET,
  MAX_BUCKET_NAME_LENGTH,
  moveLegacyBucket,
} from '#infra/local/object-store/local-bucket.ts';
import { startLocalStage } from '#infra/local/stage/local-stage.ts';

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});
const folder = async () => {
  const made = await mkdtemp(join(tmpdir(), 'local-bucket-'));
  folders.push(made);
  return made;
};
const client = (store: { endpoint: string; credentials: Credentials }) =>
  new S3Client({
    ...s3ClientOptions(store.endpoint),
    region: LOCAL_REGION,
    credentials: store.credentials,
  });

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

  it('starts a stage on a data folder from before with its objects under the new name', async () => {
    const dataDir = await folder();
    const old = await startObjectStore({ directory: join(dataDir, 's3') });
    const before = client(old);
    try {
      await ensureBucket(old.endpoint, LEGACY_LOCAL_BUCKET, old.credentials);
      await before.send(
        new PutObjectCommand({ Bucket: LEGACY_LOCAL_BUCKET, Key: 'users/1/files/2', Body: 'kept' }),
      );
    } finally {
      before.destroy();
      await old.stop();
    }
    const stage = await startLocalStage({
      dataDir,
      port: 0,
      emulators: { dynamodbEndpoint: inject('emulators').dynamodbEndpoint },
      tableName: `local-bucket-${String(process.pid)}`,
      // An object stored before scanning is held until scanned or released; not this test's.
      malwareScanning: false,
    });
    const after = client({ endpoint: stage.s3Endpoint, credentials: stage.s3Credentials });
    try {
      expect(stage.bucket).toBe(LOCAL_BUCKET);
      const object = await after.send(
        new GetObjectCommand({ Bucket: LOCAL_BUCKET, Key: 'users/1/files/2' }),
      );
      expect(await object.Body?.transformToString()).toBe('kept');
      expect(await readdir(join(dataDir, 's3'))).toEqual([LOCAL_BUCKET]);
    } finally {
      after.destroy();
      await stage.close();
    }
  });
});
