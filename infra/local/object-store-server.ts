import { createServer } from 'node:http';
import { isIPv6 } from 'node:net';
import type { CorsRule } from '../stacks/cors-rules.ts';
import type { BucketStore } from './object-store/bucket-store.ts';
import { objectStoreListener } from './object-store/object-store-front.ts';
import type { Credentials } from './sigv4-check.ts';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** `http://host:port`, an IPv6 address in brackets. */
export const endpointOf = (host: string, port: number): string =>
  `http://${isIPv6(host) ? `[${host}]` : host}:${String(port)}`;

/**
 * Serves the store behind S3's checks (object-store/object-store-front.ts) on `host`: the
 * front's port is the only way to it. Its endpoint is where this machine reaches it:
 * loopback when it listens on every interface.
 */
export async function serveBehindFront(
  store: BucketStore,
  options: {
    readonly host: string;
    readonly port: number;
    readonly credentials: Credentials;
    readonly region: string;
    /** Downloads of scanned objects wait for their tag (s3-scan-hold.ts). */
    readonly malwareScanning: boolean;
    readonly corsRules: readonly CorsRule[];
  },
): Promise<{ readonly endpoint: string; readonly stop: () => Promise<void> }> {
  const server = createServer(objectStoreListener({ ...options, store }));
  // Node's 5 s closes a kept-alive connection while a client that has not yet read a large
  // answer (a busy client: the docs bundle, a download) still holds it unread, and the client
  // loses the answer ("other side closed"). Stopping closes every connection anyway.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const reachAt = WILDCARDS.has(options.host) ? '127.0.0.1' : options.host;
  return {
    endpoint: endpointOf(reachAt, port),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
