import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import {
  ensureBucket,
  LOCAL_REGION,
  type RunningObjectStore,
  s3ClientOptions,
  startObjectStore,
} from '#infra/local/stage/stand-ins.ts';

export interface OwnObjectStore {
  /** The store behind its front, as the local stage runs it, with its random credentials. */
  readonly server: RunningObjectStore;
  /** A client signed with those credentials. */
  readonly s3: S3Client;
  /** Bytes in the bucket's and the spool's files: they grow once part of a body is written. */
  bytesOnDisk(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A local object store of a test file's own, in a scratch folder, with `bucket` made: for the
 * tests of the object store itself, which patch or watch what the shared one would not show.
 */
export async function startOwnObjectStore(bucket: string): Promise<OwnObjectStore> {
  const directory = await mkdtemp(join(tmpdir(), `object-store-${bucket}-`));
  const server = await startObjectStore({ directory });
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
      // The bucket's folder, and the spool where new bytes arrive before they land.
      const folders = [join(directory, bucket), `${directory}-spool`];
      const files = await Promise.all(
        folders.map(async (folder) =>
          (await readdir(folder, { recursive: true })).map((name) => join(folder, name)),
        ),
      );
      const sizes = await Promise.all(files.flat().map((file) => stat(file)));
      return sizes.filter((entry) => entry.isFile()).reduce((sum, entry) => sum + entry.size, 0);
    },
    stop: async () => {
      s3.destroy();
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
