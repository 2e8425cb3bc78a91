import { mkdir } from 'node:fs/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  endpointOf,
  type ObjectStoreFrontOptions,
  objectStoreFront,
} from '../object-store/object-store-front.ts';
import { serveHttp } from './listening.ts';
import { isWildcard } from './public-host.ts';
import { BucketStore } from '../object-store/bucket-store.ts';
import type { Credentials } from '../sigv4-check.ts';
import { newCredentials } from '../stage-credentials.ts';

const CHECKSUMS_WHEN_REQUIRED = {
  ...{ requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' },
} as const;
/** Path-style, and checksums only where S3 requires them (else chunk framing is stored). */
export const s3ClientOptions = (endpoint: string | undefined) =>
  endpoint === undefined ? {} : { endpoint, forcePathStyle: true, ...CHECKSUMS_WHEN_REQUIRED };

/** DynamoDB Local takes any signature; the store and Invoke API check the stage's own. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const LOCAL_REGION = 'us-east-1';

export interface RunningStandIn {
  readonly endpoint: string;
  readonly pid?: number;
  stop(): Promise<void>;
}

/** Both stand-ins, or neither: when one fails to start, the other is stopped. */
export async function startBoth<A extends RunningStandIn, B extends RunningStandIn>(
  first: Promise<A>,
  second: Promise<B>,
): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'fulfilled' && b.status === 'fulfilled') return [a.value, b.value];
  const started = [a, b].flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  await Promise.allSettled(started.map((standIn) => standIn.stop()));
  throw a.status === 'rejected' ? a.reason : (b as PromiseRejectedResult).reason;
}

export interface RunningObjectStore extends RunningStandIn {
  /** Past the front's checks, in this process only: the scanner's way in, and S3's events. */
  readonly store: BucketStore;
  readonly credentials: Credentials;
}

/**
 * The local object store in this process, objects under `directory`, behind S3's checks
 * (object-store-front.ts): only requests signed with `credentials`, on loopback unless `host`.
 */
export async function startObjectStore(
  options: Partial<Omit<ObjectStoreFrontOptions, 'store' | 'region'>> & {
    readonly directory: string;
    readonly host?: string;
  },
): Promise<RunningObjectStore> {
  const host = options.host ?? '127.0.0.1';
  const credentials = options.credentials ?? newCredentials();
  await mkdir(options.directory, { recursive: true });
  const store = await BucketStore.open(options.directory, LOCAL_REGION);
  const front = objectStoreFront({ ...options, store, credentials, region: LOCAL_REGION });
  const server = await serveHttp(front, 0, host);
  const stop = async () => {
    await server.close();
    await store.close();
  };
  // Bound to every interface, it is reached here on loopback.
  const endpoint = endpointOf(isWildcard(host) ? '127.0.0.1' : host, server.port);
  return { endpoint, store, credentials, stop };
}

/** Makes the bucket; the local store's CreateBucket takes one that exists as made. */
export async function ensureBucket(
  endpoint: string,
  bucket: string,
  credentials: Credentials,
): Promise<void> {
  const client = new S3Client({ ...s3ClientOptions(endpoint), region: LOCAL_REGION, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket })).finally(() => {
    client.destroy();
  });
}
