import { createServer } from 'node:http';
import { isIPv6 } from 'node:net';
import type { BucketStore } from './object-store/bucket-store.ts';
import {
  objectStoreListener,
  type ObjectStoreFrontOptions,
} from './object-store/object-store-front.ts';

/** `http://host:port`, an IPv6 address in brackets. */
export const endpointOf = (host: string, port: number): string =>
  `http://${isIPv6(host) ? `[${host}]` : host}:${String(port)}`;

/**
 * Serves the store behind its front on `host`; the endpoint is where this machine reaches
 * it: loopback when it listens on every interface.
 */
export async function serveBehindFront(
  store: BucketStore,
  options: Omit<ObjectStoreFrontOptions, 'store'> & {
    readonly host: string;
    readonly port: number;
  },
): Promise<{ readonly endpoint: string; readonly stop: () => Promise<void> }> {
  const server = createServer(objectStoreListener({ ...options, store }));
  // Node's 5 s would close a kept-alive connection a busy client has not yet read its answer on.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject).listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const wildcard = ['0.0.0.0', '::', ''].includes(options.host);
  return {
    endpoint: endpointOf(wildcard ? '127.0.0.1' : options.host, port),
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
