import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Event } from 'aws-lambda';

/**
 * The local stage's object store: a bucket is a folder, each object a file of bytes and a
 * record beside it (`objects/<hash of key>.json`: its key, ETag, size, headers, tags), and an
 * in-memory index of the records. New bytes stream into `<root>-spool/`, and land, with their
 * record, by rename in one turn of the event loop: a read (which opens its bytes in the same
 * turn it finds the record) sees an object whole, the old one or the new, as on S3. Tags go
 * with the bytes: a new object, a copy too, starts with none. The bucket is unversioned.
 */
export interface StoredObject {
  readonly key: string;
  /** The MD5 of the bytes, quoted, as S3's ETag for a single-part upload. */
  readonly etag: string;
  readonly size: number;
  /** To the second, as S3 keeps it. */
  readonly lastModified: number;
  /** `content-type` and the other headers S3 keeps with an object, `x-amz-meta-*` too. */
  readonly headers: Readonly<Record<string, string>>;
  readonly tags: readonly (readonly [string, string])[];
  /** The file of its bytes, under the bucket's `bytes/`. */
  readonly file: string;
}

export type ObjectEventName = 'ObjectCreated:Put' | 'ObjectCreated:Post' | 'ObjectCreated:Copy';

/** A refusal in S3's terms: its status and Code. The store throws it for bytes it refuses. */
export class S3Error extends Error {
  readonly status: number;
  readonly code: string;
  /** Elements after Message, as XML: only where a client reads them. */
  readonly details: string;

  constructor(status: number, code: string, message: string, details = '') {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const inUtf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const recordName = (key: string) => `${createHash('sha256').update(key).digest('hex')}.json`;

export class BucketStore extends EventEmitter {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  private readonly sorted = new Map<string, string[]>();
  private readonly incoming: string;
  private readonly root: string;
  private readonly region: string;

  private constructor(root: string, region: string) {
    super();
    this.root = root;
    this.region = region;
    // Beside the buckets' folder, its user's only: never the system's temporary folder.
    this.incoming = `${root}-spool`;
  }

  /** The store in `root`, its buckets read back; bytes a killed run left arriving go. */
  static async open(root: string, region: string): Promise<BucketStore> {
    const store = new BucketStore(root, region);
    await rm(store.incoming, { recursive: true, force: true });
    await mkdir(store.incoming, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(root, { withFileTypes: true })) {
      if (entry.isDirectory()) await store.load(entry.name);
    }
    return store;
  }

  /** Ends the spool: nothing is held aside between runs. */
  async close(): Promise<void> {
    await rm(this.incoming, { recursive: true, force: true });
  }

  private async load(bucket: string): Promise<void> {
    const objects = new Map<string, StoredObject>();
    this.buckets.set(bucket, objects);
    const folder = join(this.root, bucket, 'objects');
    const names = await readdir(folder).catch(() => []);
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const object = JSON.parse(await readFile(join(folder, name), 'utf8')) as StoredObject;
      objects.set(object.key, object);
    }
  }

  hasBucket(bucket: string): boolean {
    return this.buckets.has(bucket);
  }

  createBucket(bucket: string): void {
    if (this.buckets.has(bucket)) return;
    mkdirSync(join(this.root, bucket, 'objects'), { recursive: true });
    mkdirSync(join(this.root, bucket, 'bytes'), { recursive: true });
    this.buckets.set(bucket, new Map());
  }

  get(bucket: string, key: string): StoredObject | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  /** The object's bytes (`start`–`end` inclusive), opened now: a landing after cannot change them. */
  read(bucket: string, object: StoredObject, range?: { start: number; end: number }): Readable {
    const fd = openSync(join(this.root, bucket, 'bytes', object.file), 'r');
    return createReadStream('', { fd, ...range });
  }

  /** Every key under `prefix`, in S3's order (UTF-8 binary). */
  keys(bucket: string, prefix: string): string[] {
    const objects = this.buckets.get(bucket);
    if (objects === undefined) return [];
    let all = this.sorted.get(bucket);
    if (all === undefined) {
      all = [...objects.keys()].sort(inUtf8Order);
      this.sorted.set(bucket, all);
    }
    return all.filter((key) => key.startsWith(prefix));
  }

  /**
   * Stores `bytes` under `key` once whole; `check` may refuse them first (by their size and
   * SHA-256), and then nothing lands.
   */
  async put(
    bucket: string,
    key: string,
    bytes: Readable,
    options: {
      readonly headers: Readonly<Record<string, string>>;
      readonly event: ObjectEventName;
      readonly check?: (size: number, sha256: string) => S3Error | undefined;
    },
  ): Promise<StoredObject> {
    const file = join(this.incoming, randomUUID());
    const md5 = createHash('md5');
    const sha256 = createHash('sha256');
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        sha256.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(bytes, count, createWriteStream(file, { mode: 0o600 }));
      const refused = options.check?.(size, sha256.digest('hex'));
      if (refused !== undefined) throw refused;
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
    if (!this.hasBucket(bucket)) this.createBucket(bucket);
    const object = this.land(bucket, {
      key,
      etag: `"${md5.digest('hex')}"`,
      size,
      lastModified: Math.floor(Date.now() / 1000) * 1000,
      headers: options.headers,
      tags: [],
      file,
    });
    this.notify(bucket, object, options.event);
    return object;
  }

  /** Copies `source` to `key` (its headers `headers` when given), in one turn. */
  copy(
    bucket: string,
    source: StoredObject,
    key: string,
    headers: Readonly<Record<string, string>> | undefined,
  ): StoredObject {
    const file = join(this.incoming, randomUUID());
    // Landed bytes never change, so the copy shares them (a hard link) whatever comes after.
    linkSync(join(this.root, bucket, 'bytes', source.file), file);
    const object = this.land(bucket, {
      ...source,
      key,
      lastModified: Math.floor(Date.now() / 1000) * 1000,
      headers: headers ?? source.headers,
      tags: [],
      file,
    });
    this.notify(bucket, object, 'ObjectCreated:Copy');
    return object;
  }

  setTags(bucket: string, key: string, tags: readonly (readonly [string, string])[]): boolean {
    const object = this.get(bucket, key);
    if (object === undefined) return false;
    this.save(bucket, { ...object, tags });
    return true;
  }

  delete(bucket: string, key: string): void {
    const object = this.get(bucket, key);
    if (object === undefined) return;
    this.buckets.get(bucket)?.delete(key);
    this.sorted.delete(bucket);
    rmSync(join(this.root, bucket, 'objects', recordName(key)), { force: true });
    rmSync(join(this.root, bucket, 'bytes', object.file), { force: true });
  }

  /** Moves the bytes in and writes the record, all synchronously: no read sees half of it. */
  private land(bucket: string, object: StoredObject): StoredObject {
    const name = randomUUID();
    renameSync(object.file, join(this.root, bucket, 'bytes', name));
    const old = this.get(bucket, object.key);
    const landed = { ...object, file: name };
    this.save(bucket, landed);
    if (old !== undefined) rmSync(join(this.root, bucket, 'bytes', old.file), { force: true });
    return landed;
  }

  private save(bucket: string, object: StoredObject): void {
    if (!this.hasBucket(bucket)) this.createBucket(bucket);
    const objects = this.buckets.get(bucket);
    if (objects?.has(object.key) !== true) this.sorted.delete(bucket);
    objects?.set(object.key, object);
    const record = join(this.root, bucket, 'objects', recordName(object.key));
    writeFileSync(`${record}.new`, JSON.stringify(object));
    renameSync(`${record}.new`, record);
  }

  /** An S3 event notification for the stage's listeners, as S3 sends one to Lambda. */
  private notify(bucket: string, object: StoredObject, eventName: ObjectEventName): void {
    const id = () => randomBytes(8).toString('hex').toUpperCase();
    const event: S3Event = {
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          awsRegion: this.region,
          eventTime: new Date().toISOString(),
          eventName,
          userIdentity: { principalId: 'AWS:LOCAL' },
          requestParameters: { sourceIPAddress: '127.0.0.1' },
          responseElements: { 'x-amz-request-id': id(), 'x-amz-id-2': id() },
          s3: {
            s3SchemaVersion: '1.0',
            configurationId: 'local-stage',
            bucket: {
              name: bucket,
              ownerIdentity: { principalId: 'LOCAL' },
              arn: `arn:aws:s3:::${bucket}`,
            },
            // The key as stored: S3 sends it URL-encoded, which s3-event-notifications.ts does.
            object: {
              key: object.key,
              size: object.size,
              eTag: object.etag.replaceAll('"', ''),
              sequencer: Date.now().toString(16).toUpperCase(),
            },
          },
        },
      ],
    };
    this.emit('event', event);
  }
}
