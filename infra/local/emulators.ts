import type { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { makeObjectWritesAtomic } from './s3rver-atomic-objects.ts';
import { answerObjectVersions } from './s3rver-object-versions.ts';

/**
 * S3 client options for an endpoint override (s3rver locally): path-style addressing, and
 * checksums only where S3 requires them, or s3rver stores the chunk framing in the object.
 */
export function s3ClientOptions(endpoint: string | undefined) {
  return endpoint === undefined
    ? {}
    : ({
        endpoint,
        forcePathStyle: true,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      } as const);
}

/** s3rver accepts only its own key; DynamoDB Local accepts any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const LOCAL_REGION = 'us-east-1';

export interface RunningEmulator {
  readonly endpoint: string;
  /** The emulator's own process, when it runs in one. */
  readonly pid?: number;
  stop(): Promise<void>;
}

/**
 * Waits for both emulators, recording each one that started, so that when the other fails
 * the caller can stop the one that did not.
 */
export async function startBoth<A extends RunningEmulator, B extends RunningEmulator>(
  first: Promise<A>,
  second: Promise<B>,
  started: RunningEmulator[],
): Promise<[A, B]> {
  const results = await Promise.allSettled([first, second]);
  for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
  const [a, b] = results;
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

export interface RunningS3rver extends RunningEmulator {
  /** Emits `event` with an S3 event notification for each object created or deleted. */
  readonly notifications: EventEmitter;
}

/** Starts s3rver in this process, on a free port, keeping objects under `directory`. */
export async function startS3rver(options: {
  directory: string;
  port?: number;
}): Promise<RunningS3rver> {
  await mkdir(options.directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory: options.directory,
  });
  answerObjectVersions(server);
  makeObjectWritesAtomic(server);
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    notifications: server,
    stop: async () => {
      await server.close();
    },
  };
}

export async function ensureBucket(endpoint: string, bucket: string): Promise<void> {
  const client = new S3Client({
    ...s3ClientOptions(endpoint),
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket })).catch(async () => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    });
  } finally {
    client.destroy();
  }
}
