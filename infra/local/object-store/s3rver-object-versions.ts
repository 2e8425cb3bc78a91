import type S3rver from 's3rver';
import type { FilesystemStore } from 's3rver';
import { keysUnder, objectsOf, pageOf } from './s3rver-key-listing.ts';

/**
 * ListObjectVersions for s3rver, which answers it 405. The local bucket is unversioned, so
 * it answers as S3 answers for an unversioned bucket: each object is its one version, with
 * version id `null`. A delete by that version id (s3rver ignores the id) then deletes the
 * object, as S3 does. The code that purges every version of a key thus runs unchanged here.
 */

/** s3rver's own store, as its controllers use it (`ctx.store`). */
type S3rverStore = FilesystemStore & { getBucket(bucket: string): Promise<unknown> };

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  store: S3rverStore;
  status: number;
  body: unknown;
}

type Middleware = (context: KoaContext, next: () => Promise<void>) => Promise<void>;

const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

const listVersions: Middleware = async (context, next) => {
  const bucket = /^\/([^/]+)\/?$/.exec(context.path)?.[1];
  if (context.method !== 'GET' || bucket === undefined || !('versions' in context.query)) {
    await next();
    return;
  }
  if (!(await context.store.getBucket(bucket))) {
    await next(); // s3rver answers NoSuchBucket
    return;
  }
  const prefix = single(context.query.prefix) ?? '';
  const keyMarker = single(context.query['key-marker']) ?? '';
  const maxKeys = Math.min(Number(single(context.query['max-keys']) ?? 1000) || 1000, 1000);
  // In key order, as S3 pages them (s3rver's own listing walks folders in name order).
  const { listed, isTruncated } = pageOf(await keysUnder(context.store, bucket, prefix), {
    prefix,
    maxKeys,
    ...(keyMarker === '' ? {} : { after: { key: keyMarker } }),
  });
  const objects = await objectsOf(context.store, bucket, listed);
  const last = listed.at(-1);
  context.status = 200;
  // s3rver's XML middleware encodes a plain object as its XML.
  context.body = {
    ListVersionsResult: {
      '@': { xmlns: S3_NAMESPACE },
      Name: bucket,
      Prefix: prefix,
      KeyMarker: keyMarker,
      VersionIdMarker: '',
      MaxKeys: maxKeys,
      IsTruncated: isTruncated,
      ...(isTruncated && last !== undefined && 'key' in last
        ? { NextKeyMarker: last.key, NextVersionIdMarker: 'null' }
        : {}),
      Version: objects.map((object) => ({
        Key: object.key,
        VersionId: 'null',
        IsLatest: true,
        LastModified: object.lastModified,
        ETag: object.etag,
        Size: object.size,
        StorageClass: 'STANDARD',
      })),
    },
  };
};

/** Installs the listing in front of s3rver's router; call before `run()`. */
export function answerObjectVersions(server: S3rver): void {
  const { middleware } = server;
  // The router is the last middleware; the XML encoder before it must wrap this answer too.
  middleware.splice(middleware.length - 1, 0, listVersions);
}
