import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Event } from 'aws-lambda';

/**
 * The local stage's object store: a bucket is a folder, each object a file of bytes and a
 * JSON record (`objects/<hash of key>.json`), indexed in memory. New bytes stream into
 * `<root>-spool/` and land, record and all, by rename in one turn of the event loop; a read
 * opens its bytes in the turn it finds the record: every reader sees an object whole or not
 * at all. A new object, a copy too, starts with no tags. Each write is a version of its own,
 * with its own id; the bucket keeps a key's current version only: one written over is gone.
 */
export interface StoredObject {
  readonly key: string;
  /** This write's id (`x-amz-version-id`); `null` for one kept from before versions, as in S3. */
  readonly versionId: string;
  /** The SHA-256 of the bytes, base64: a copy answers it (`ChecksumSHA256`). */
  readonly sha256?: string;
  /** The MD5 of the bytes, quoted: S3's ETag for a single-part upload. */
  readonly etag: string;
  readonly size: number;
  /** To the second, as S3 keeps it. */
  readonly lastModified: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly tags: readonly (readonly [string, string])[];
  /** Its bytes' file, under the bucket's `bytes/`. */
  readonly file: string;
}

/** An object before it lands, or as kept before versions. */
type Unversioned = Omit<StoredObject, 'versionId'>;

export type ObjectEventName = 'ObjectCreated:Put' | 'ObjectCreated:Post' | 'ObjectCreated:Copy';

/** The S3 error Codes the stage answers, and their status. */
const S3_STATUS = {
  ...{ AccessDenied: 403, AccessForbidden: 403, InvalidAccessKeyId: 403 },
  ...{ SignatureDoesNotMatch: 403, RequestTimeTooSkewed: 403, AuthorizationHeaderMalformed: 400 },
  ...{ XAmzContentSHA256Mismatch: 400, EntityTooLarge: 400, EntityTooSmall: 400 },
  ...{ MaxPostPreDataLengthExceeded: 400, IncorrectNumberOfFilesInPostRequest: 400 },
  ...{ MalformedPOSTRequest: 400, InvalidPolicyDocument: 400, InvalidArgument: 400 },
  ...{ NoSuchKey: 404, NoSuchVersion: 404, NoSuchBucket: 404, PreconditionFailed: 412 },
  ...{ InternalError: 500, NotImplemented: 501 },
} as const;

/**
 * A refusal as S3 answers it: its status and Code (what clients read); the Message is ours,
 * the reason where there is one (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 */
export class S3Error extends Error {
  readonly status: number;
  readonly code: keyof typeof S3_STATUS;

  constructor(code: keyof typeof S3_STATUS, message: string = code) {
    super(message);
    [this.status, this.code] = [S3_STATUS[code], code];
  }
}

const recordName = (key: string) => `${createHash('sha256').update(key).digest('hex')}.json`;
const toTheSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

/** S3's notification of an object created in `bucket`, its key as given. */
export function objectCreatedEvent(
  region: string,
  bucket: string,
  { key, size, etag }: Pick<StoredObject, 'key' | 'size' | 'etag'>,
  eventName: ObjectEventName,
): S3Event {
  const id = () => randomBytes(8).toString('hex').toUpperCase();
  const sequencer = Date.now().toString(16).toUpperCase();
  const owner = { principalId: 'LOCAL' };
  const record = {
    ...{ eventVersion: '2.1', eventSource: 'aws:s3', awsRegion: region, eventName },
    ...{ eventTime: new Date().toISOString(), userIdentity: { principalId: 'AWS:LOCAL' } },
    requestParameters: { sourceIPAddress: '127.0.0.1' },
    responseElements: { 'x-amz-request-id': id(), 'x-amz-id-2': id() },
    s3: {
      ...{ s3SchemaVersion: '1.0', configurationId: 'local-stage' },
      bucket: { name: bucket, ownerIdentity: owner, arn: `arn:aws:s3:::${bucket}` },
      object: { key, size, eTag: etag.replaceAll('"', ''), sequencer },
    },
  };
  return { Records: [record] };
}

export class BucketStore extends EventEmitter {
  private readonly buckets = new Map<string, Map<string, StoredObject>>();
  private readonly sorted = new Map<string, string[]>();
  private readonly root: string;
  private readonly region: string;
  /** Beside the buckets' folder, its user's only: never the system's temporary folder. */
  private readonly spool: string;

  private constructor(root: string, region: string) {
    super();
    [this.root, this.region, this.spool] = [root, region, `${root}-spool`];
  }

  /** The store in `root`, its buckets read back; bytes a killed run left arriving go. */
  static async open(root: string, region: string): Promise<BucketStore> {
    const store = new BucketStore(root, region);
    await store.close();
    await mkdir(store.spool, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const objects = new Map<string, StoredObject>();
      store.buckets.set(entry.name, objects);
      const folder = join(root, entry.name, 'objects');
      for (const name of await readdir(folder).catch(() => [])) {
        if (!name.endsWith('.json')) continue;
        const object = JSON.parse(await readFile(join(folder, name), 'utf8')) as Unversioned;
        objects.set(object.key, { versionId: 'null', ...object });
      }
    }
    return store;
  }

  /** Ends the spool: nothing is held aside between runs. */
  async close(): Promise<void> {
    await rm(this.spool, { recursive: true, force: true });
  }

  hasBucket(bucket: string): boolean {
    return this.buckets.has(bucket);
  }

  createBucket(bucket: string): void {
    if (this.buckets.has(bucket)) return;
    fs.mkdirSync(join(this.root, bucket, 'objects'), { recursive: true });
    fs.mkdirSync(join(this.root, bucket, 'bytes'), { recursive: true });
    this.buckets.set(bucket, new Map());
  }

  get(bucket: string, key: string): StoredObject | undefined {
    return this.buckets.get(bucket)?.get(key);
  }

  /** The object's bytes, opened now: a landing after cannot change them. */
  read(bucket: string, object: StoredObject): Readable {
    const fd = fs.openSync(join(this.root, bucket, 'bytes', object.file), 'r');
    return fs.createReadStream('', { fd });
  }

  /** Every key under `prefix`, in S3's order (UTF-8 binary). */
  keys(bucket: string, prefix: string): string[] {
    let all = this.sorted.get(bucket);
    if (all === undefined) {
      all = [...(this.buckets.get(bucket)?.keys() ?? [])].sort((a, b) =>
        Buffer.compare(Buffer.from(a), Buffer.from(b)),
      );
      this.sorted.set(bucket, all);
    }
    return all.filter((key) => key.startsWith(prefix));
  }

  /** Stores `bytes` under `key` once whole, unless too many or `check` refuses them. */
  async put(
    bucket: string,
    key: string,
    bytes: Readable,
    options: {
      readonly headers: Readonly<Record<string, string>>;
      readonly event: ObjectEventName;
      /** Past it the put fails (EntityTooLarge) before another byte is kept. */
      readonly maxSize?: number;
      readonly check?: (size: number, sha256: string) => S3Error | undefined;
    },
  ): Promise<StoredObject> {
    const file = join(this.spool, randomUUID());
    const [md5, sha256] = [createHash('md5'), createHash('sha256')];
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        sha256.update(chunk);
        size += chunk.length;
        done(size > (options.maxSize ?? Infinity) ? new S3Error('EntityTooLarge') : null, chunk);
      },
    });
    try {
      await pipeline(bytes, count, fs.createWriteStream(file, { mode: 0o600 }));
      const refused = options.check?.(size, sha256.copy().digest('hex'));
      if (refused !== undefined) throw refused;
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
    const etag = `"${md5.digest('hex')}"`;
    const lastModified = toTheSecond(Date.now());
    const object = { key, etag, size, lastModified, headers: options.headers, tags: [], file };
    return this.land(bucket, { ...object, sha256: sha256.digest('base64') }, options.event);
  }

  /** Copies `source` to `key` (with `headers` when given), sharing its bytes by a hard link. */
  copy(bucket: string, source: StoredObject, key: string, headers?: StoredObject['headers']) {
    const file = join(this.spool, randomUUID());
    fs.linkSync(join(this.root, bucket, 'bytes', source.file), file);
    const lastModified = toTheSecond(Date.now());
    const copied = { ...source, key, lastModified, headers: headers ?? source.headers, tags: [] };
    return this.land(bucket, { ...copied, file }, 'ObjectCreated:Copy');
  }

  setTags(bucket: string, key: string, tags: readonly (readonly [string, string])[]): boolean {
    const object = this.get(bucket, key);
    if (object !== undefined) this.save(bucket, { ...object, tags });
    return object !== undefined;
  }

  /** Deletes the object; with `versionId`, only while it is that version: no other is kept. */
  delete(bucket: string, key: string, versionId?: string): void {
    const object = this.get(bucket, key);
    if (object === undefined || (versionId ?? object.versionId) !== object.versionId) return;
    this.buckets.get(bucket)?.delete(key);
    this.sorted.delete(bucket);
    fs.rmSync(join(this.root, bucket, 'objects', recordName(key)), { force: true });
    fs.rmSync(join(this.root, bucket, 'bytes', object.file), { force: true });
  }

  /** Moves the bytes in and writes the record, all synchronously; then tells the listeners. */
  private land(bucket: string, object: Unversioned, name: ObjectEventName) {
    this.createBucket(bucket);
    const landed = { ...object, versionId: randomBytes(16).toString('hex'), file: randomUUID() };
    fs.renameSync(object.file, join(this.root, bucket, 'bytes', landed.file));
    const old = this.get(bucket, object.key);
    this.save(bucket, landed);
    if (old !== undefined) fs.rmSync(join(this.root, bucket, 'bytes', old.file), { force: true });
    // The key as stored: s3-event-notifications.ts URL-encodes it, as S3 sends it.
    this.emit('event', objectCreatedEvent(this.region, bucket, landed, name));
    return landed;
  }

  private save(bucket: string, object: StoredObject): void {
    const objects = this.buckets.get(bucket);
    if (objects?.has(object.key) !== true) this.sorted.delete(bucket);
    objects?.set(object.key, object);
    const record = join(this.root, bucket, 'objects', recordName(object.key));
    fs.writeFileSync(`${record}.new`, JSON.stringify(object));
    fs.renameSync(`${record}.new`, record);
  }
}
