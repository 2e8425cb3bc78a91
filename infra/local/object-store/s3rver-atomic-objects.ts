import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from 's3rver';
import type { FilesystemStore, StoredObject } from 's3rver';
import type { CopySource } from './s3rver-conditional-copy.ts';
import { s3Error } from './s3rver-errors.ts';

/**
 * S3 shows an object whole or not at all: a read during a PUT sees the old object. s3rver
 * writes into the object's file in place, then its checksum, then its metadata, so a read
 * during a write sees part of it, often 0 bytes. The local stage runs completers alongside a
 * reused signed form, and a HEAD that saw 0 bytes refused a good upload as empty.
 *
 * Here new bytes stream into a file of their own, and land by rename: a read stream already
 * open keeps the bytes it opened. The landing (rename, checksum, metadata) and each read of
 * a key take turns, so a read sees one object's size, checksum and bytes together. A copy
 * checks its source (`checkCopySource`: CopyObject's conditions) in the turn it copies in,
 * so it copies the very object it checked.
 *
 * A new object starts with no tags, as on S3, where s3rver would keep the tags of the object
 * it replaces; they go before the new bytes land, so no read sees new bytes with old tags
 * (the local bucket policy admits a download by its tag: s3-scan-hold.ts). A copy starts with
 * none too, whatever its TaggingDirective (S3 copies the source's unless it is REPLACE; the
 * service always sends REPLACE), and a delete takes them with the object.
 */
export function makeObjectWritesAtomic(
  server: S3rver,
  options: { readonly checkCopySource?: (source: CopySource) => void } = {},
): void {
  const store = server.store;
  const raw = {
    getMetadata: store.getMetadata.bind(store),
    deleteObject: store.deleteObject.bind(store),
  };
  // getObject reads through `this.getMetadata`, which inside a turn must not queue again.
  const unlocked: FilesystemStore = Object.assign(Object.create(store) as FilesystemStore, {
    getMetadata: raw.getMetadata,
  });
  const getObject = store.getObject.bind(unlocked);
  const turns = new KeyTurns();
  const id = (bucket: string, key: string) => `${bucket}/${key}`;
  // Where s3rver keeps an object's tags (PutObjectTagging's `tagging` subresource).
  const removeTags = (bucket: string, key: string) =>
    rm(store.getResourcePath(bucket, key, 'tagging.xml'), { force: true });

  store.putObject = async (object: StoredObject) => {
    const target = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(target), { recursive: true });
    // Not named `*._S3rver_object`, so listings never show it.
    const incoming = `${target}.incoming-${randomUUID()}`;
    const md5 = createHash('md5');
    let size = 0;
    try {
      const content = Buffer.isBuffer(object.content)
        ? Readable.from([object.content])
        : (object.content ?? Readable.from([]));
      await pipeline(
        content,
        new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            md5.update(chunk);
            size += chunk.length;
            callback(null, chunk);
          },
        }),
        createWriteStream(incoming),
      );
    } catch (error) {
      await rm(incoming, { force: true });
      throw error;
    }
    const digest = md5.digest('hex');
    await turns.take([id(object.bucket, object.key)], async () => {
      await removeTags(object.bucket, object.key);
      await rename(incoming, target);
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    });
    return { size, md5: digest };
  };

  store.getMetadata = (bucket, key) =>
    turns.take([id(bucket, key)], () => raw.getMetadata(bucket, key));

  store.getObject = (bucket, key, options) =>
    turns.take([id(bucket, key)], () => getObject(bucket, key, options));

  store.copyObject = (sourceBucket, sourceKey, targetBucket, targetKey, replacementMetadata) =>
    turns.take([id(sourceBucket, sourceKey), id(targetBucket, targetKey)], async () => {
      const found = await raw.getMetadata(sourceBucket, sourceKey).catch((error: unknown) => {
        // Gone since s3rver looked: S3's answer for a missing source, not a 500.
        if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
        throw s3Error('NoSuchKey', 'The specified key does not exist.', { Key: sourceKey });
      });
      options.checkCopySource?.({
        etag: String(found.etag),
        lastModified: String(found['last-modified']),
      });
      const source = store.getResourcePath(sourceBucket, sourceKey, 'object');
      const target = store.getResourcePath(targetBucket, targetKey, 'object');
      await removeTags(targetBucket, targetKey);
      if (source !== target) {
        await mkdir(dirname(target), { recursive: true });
        const incoming = `${target}.incoming-${randomUUID()}`;
        await copyFile(source, incoming);
        await rename(incoming, target);
        const metadata = store.getResourcePath(sourceBucket, sourceKey, 'metadata.json');
        await copyFile(`${source}.md5`, `${target}.md5`);
        await copyFile(metadata, store.getResourcePath(targetBucket, targetKey, 'metadata.json'));
      }
      if (replacementMetadata) {
        await store.putMetadata(targetBucket, targetKey, replacementMetadata);
      }
      return raw.getMetadata(targetBucket, targetKey);
    });

  store.deleteObject = (bucket, key) =>
    turns.take([id(bucket, key)], async () => {
      await removeTags(bucket, key);
      await raw.deleteObject(bucket, key);
    });
}

/** One turn at a time per key; a turn on several keys takes them in one order (no deadlock). */
class KeyTurns {
  private readonly tails = new Map<string, Promise<void>>();

  async take<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const [first, ...rest] = [...new Set(keys)].sort();
    if (first === undefined) return work();
    return this.one(first, () => this.take(rest, work));
  }

  private async one<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let finish = () => {};
    const mine = new Promise<void>((resolve) => (finish = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      finish();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
