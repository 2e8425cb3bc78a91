import { mkdir, readdir, rm } from 'node:fs/promises';
import { createServer, type RequestListener } from 'node:http';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import type S3rver from 's3rver';
import { createObjectStoreFront } from './object-store/object-store-front.ts';
import type { DirectStore } from './object-store/s3-object-tags.ts';
import type { Credentials } from './sigv4-check.ts';
import type { CorsRule } from '../stacks/cors-rules.ts';

/** What of s3rver's Koa application the front uses (the package ships no types). */
interface KoaApplication {
  /** The request handler Koa builds from the middleware installed so far. */
  callback(): RequestListener;
  readonly logger: { readonly exceptions: { unhandle(): void }; close(): void };
  /** Where s3rver keeps its buckets (its `directory`). */
  readonly store: { readonly rootDirectory: string };
}

export interface ServedObjectStore {
  /** Where this machine reaches it: loopback when it listens on every interface. */
  readonly endpoint: string;
  readonly port: number;
  /** s3rver past the front's checks, in this process only (object-store-front.ts). */
  readonly direct: DirectStore;
  readonly stop: () => Promise<void>;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** `http://host:port`, an IPv6 address in brackets. */
export const endpointOf = (host: string, port: number): string =>
  `http://${isIPv6(host) ? `[${host}]` : host}:${String(port)}`;

/**
 * Serves s3rver behind the authenticating front, on `host`: s3rver itself listens on
 * nothing (its `run()` is never called), so the front's port is the only way to it. Call
 * once every middleware is installed: Koa composes them here.
 * A form's file waits until whole in `<s3rver's folder>-spool` (its user's only), not the
 * system's temporary folder; each start clears what a killed run left there and in s3rver's.
 */
export async function serveBehindFront(
  s3rver: S3rver,
  options: {
    readonly host: string;
    readonly port: number;
    readonly credentials: Credentials;
    readonly region: string;
    /** Downloads of scanned objects wait for their tag (s3-scan-hold.ts). */
    readonly malwareScanning?: boolean;
    readonly corsRules?: readonly CorsRule[];
  },
): Promise<ServedObjectStore> {
  const koa = s3rver as unknown as KoaApplication;
  const spool = `${koa.store.rootDirectory}-spool`;
  await rm(spool, { recursive: true, force: true });
  await mkdir(spool, { mode: 0o700 });
  // New bytes of objects that never landed (`*.incoming-<uuid>`, s3rver-atomic-objects.ts).
  const files = await readdir(koa.store.rootDirectory, { recursive: true, withFileTypes: true });
  const leftovers = files.filter((f) => f.isFile() && /\.incoming-[\da-f-]{36}$/.test(f.name));
  await Promise.all(leftovers.map((file) => rm(join(file.parentPath, file.name))));
  const front = createObjectStoreFront({
    credentials: options.credentials,
    region: options.region,
    store: koa.callback(),
    spool,
    malwareScanning: options.malwareScanning === true,
    corsRules: options.corsRules ?? [],
  });
  const server = createServer(front.listener);
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
    port,
    direct: front.direct,
    stop: async () => {
      server.closeAllConnections();
      front.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      // What s3rver does when its own server closes.
      koa.logger.exceptions.unhandle();
      koa.logger.close();
      await rm(spool, { recursive: true, force: true });
    },
  };
}
