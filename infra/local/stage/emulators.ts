import { mkdir } from 'node:fs/promises';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { serveBehindFront } from '../object-store-server.ts';
import { BucketStore } from '../object-store/bucket-store.ts';
import type { Credentials } from '../sigv4-check.ts';
import type { CorsRule } from '../../stacks/cors-rules.ts';
import { newCredentials } from '../stage-credentials.ts';

/**
 * S3 client options for an endpoint override (the local store): path-style addressing, and
 * checksums only where S3 requires them, or the store would keep the chunk framing in the object.
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

export interface RunningObjectStore extends RunningEmulator {
  /** The store itself, past the front's checks, in this process only: the local scanner's
   * way in. It emits `event` with an S3 event notification for each object created. */
  readonly store: BucketStore;
  /** The only credentials it takes a signature by. */
  readonly credentials: Credentials;
}

/**
 * Starts the local object store in this process, keeping objects under `directory`, behind
 * S3's checks (object-store/object-store-front.ts): it answers only requests signed with
 * `credentials` (new random ones unless given), on `host` (loopback unless given) and `port`
 * (a free one unless given). With `malwareScanning`, a signed download of an object under the
 * scanned prefixes needs the tag the bucket policy asks for (s3-scan-hold.ts).
 */
export async function startObjectStore(options: {
  directory: string;
  port?: number;
  host?: string;
  credentials?: Credentials;
  malwareScanning?: boolean;
  /** The bucket's CORS rules, which S3 answers a preflight from (object-store-front.ts). */
  corsRules?: readonly CorsRule[];
}): Promise<RunningObjectStore> {
  const credentials = options.credentials ?? newCredentials();
  await mkdir(options.directory, { recursive: true });
  const store = await BucketStore.open(options.directory, LOCAL_REGION);
  const served = await serveBehindFront(store, {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    credentials,
    region: LOCAL_REGION,
    malwareScanning: options.malwareScanning === true,
    corsRules: options.corsRules ?? [],
  });
  const stop = async () => {
    await served.stop();
    await store.close();
  };
  return { endpoint: served.endpoint, store, credentials, stop };
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
