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

  /** An object as s3rver's store takes it in and hands it out. */
  export interface StoredObject {
    bucket: string;
    key: string;
    content: NodeJS.ReadableStream | Buffer | null;
    metadata: Record<string, string>;
  }

  /** s3rver's filesystem store, which its controllers reach as `ctx.store`. */
  export interface FilesystemStore {
    getResourcePath(bucket: string, key: string, resource: string): string;
    getMetadata(bucket: string, key: string): Promise<Record<string, string | number>>;
    putMetadata(
      bucket: string,
      key: string,
      metadata: Record<string, string>,
      md5?: string,
    ): Promise<void>;
    putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
    getObject(bucket: string, key: string, options?: unknown): Promise<StoredObject | null>;
    copyObject(
      sourceBucket: string,
      sourceKey: string,
      targetBucket: string,
      targetKey: string,
      replacementMetadata: Record<string, string> | null,
    ): Promise<Record<string, string | number>>;
    deleteObject(bucket: string, key: string): Promise<void>;
  }

  export default class S3rver extends EventEmitter {
    constructor(options?: S3rverOptions);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    reset(): void;
    /** Koa's middleware stack, composed when `run()` listens. */
    readonly middleware: unknown[];
    readonly store: FilesystemStore;
  }
}
