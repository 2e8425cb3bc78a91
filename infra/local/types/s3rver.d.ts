/** The part of s3rver 3.x the local stage uses (the package ships no types). */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  import type { EventEmitter } from 'node:events';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  export default class S3rver extends EventEmitter {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    reset(): void;
    /** Koa's middleware stack, composed when `run()` listens. */
    readonly middleware: unknown[];
  }
}
