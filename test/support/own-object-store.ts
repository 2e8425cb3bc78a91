import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import {
  ensureBucket,
  LOCAL_REGION,
  type RunningS3rver,
  s3ClientOptions,
  startS3rver,
} from '#infra/local/emulators.ts';

export interface OwnObjectStore {
  /** s3rver behind its front, as the local stage runs it, with its random credentials. */
  readonly server: RunningS3rver;
  /** A client signed with those credentials. */
  readonly s3: S3Client;
  /** Bytes in files under the bucket's folder: they grow once s3rver has written part of a body. */
  bytesOnDisk(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A local object store of a test file's own, in a scratch folder, with `bucket` made: for the
 * tests of the object store itself, which patch or watch what the shared one would not show.
 */
export async function startOwnObjectStore(bucket: string): Promise<OwnObjectStore> {
  const directory = await mkdtemp(join(tmpdir(), `s3rver-${bucket}-`));
  const server = await startS3rver({ directory });
  await ensureBucket(server.endpoint, bucket, server.credentials);
  const s3 = new S3Client({
    ...s3ClientOptions(server.endpoint),
    region: LOCAL_REGION,
    credentials: server.credentials,
  });
  return {
    server,
    s3,
    bytesOnDisk: async () => {
      const names = await readdir(join(directory, bucket), { recursive: true });
      const sizes = await Promise.all(names.map((name) => stat(join(directory, bucket, name))));
      return sizes.filter((entry) => entry.isFile()).reduce((sum, entry) => sum + entry.size, 0);
    },
    stop: async () => {
      s3.destroy();
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
