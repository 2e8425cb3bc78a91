import type { EventEmitter } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { serveBehindFront } from './object-store-server.ts';
import type { DirectStore } from './object-store/s3-object-tags.ts';
import type { Credentials } from './sigv4-check.ts';
import type { CorsRule } from '../stacks/cors-rules.ts';
import { newCredentials } from './stage-credentials.ts';
import { makeObjectWritesAtomic } from './object-store/s3rver-atomic-objects.ts';
import { honourCopyConditions } from './object-store/s3rver-conditional-copy.ts';
import { answerListObjectsV2 } from './object-store/s3rver-list-objects-v2.ts';
import { answerObjectVersions } from './object-store/s3rver-object-versions.ts';

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

/**
 * What clients of DynamoDB Local sign with: it accepts any signature. The object store and the
 * Invoke API check the stage's own, secret credentials instead (stage-credentials.ts).
 */
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
  /** The only credentials it takes a signature by. */
  readonly credentials: Credentials;
  /** s3rver past the front's checks, in this process only: the local scanner's way in. */
  readonly direct: DirectStore;
}

/**
 * Starts s3rver in this process, keeping objects under `directory`, behind S3's
 * authentication (object-store-front.ts): it answers only requests signed with `credentials`
 * (new random ones unless given), on `host` (loopback unless given) and `port` (a free one
 * unless given). With `malwareScanning`, a signed download of an object under the scanned
 * prefixes needs the tag the bucket policy asks for (s3-scan-hold.ts).
 */
export async function startS3rver(options: {
  directory: string;
  port?: number;
  host?: string;
  credentials?: Credentials;
  malwareScanning?: boolean;
  /** The bucket's CORS rules, which S3 answers a preflight from (object-store-front.ts). */
  corsRules?: readonly CorsRule[];
}): Promise<RunningS3rver> {
  const credentials = options.credentials ?? newCredentials();
  await mkdir(options.directory, { recursive: true });
  const server = new S3rver({
    silent: true,
    directory: options.directory,
  });
  answerObjectVersions(server);
  answerListObjectsV2(server);
  makeObjectWritesAtomic(server, { checkCopySource: honourCopyConditions(server) });
  const served = await serveBehindFront(server, {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    credentials,
    region: LOCAL_REGION,
    malwareScanning: options.malwareScanning === true,
    corsRules: options.corsRules ?? [],
  });
  return {
    endpoint: served.endpoint,
    notifications: server,
    credentials,
    direct: served.direct,
    stop: served.stop,
  };
}

export async function ensureBucket(
  endpoint: string,
  bucket: string,
  credentials: Credentials,
): Promise<void> {
  const client = new S3Client({
    ...s3ClientOptions(endpoint),
    region: LOCAL_REGION,
    credentials,
  });
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket })).catch(async () => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    });
  } finally {
    client.destroy();
  }
}
