import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  BlobChangedError,
  BlobNotFoundError,
  type BlobStore,
  type BlobVersion,
  type BlobVersions,
  type CopiedBlob,
  type DownloadSigner,
  type StoredBlob,
  type StoredVersion,
  type UploadForm,
  type UploadSigner,
} from '../blob-store.ts';
import { attachmentDisposition } from './content-disposition.ts';
import {
  dealFileObjectKey,
  directUploadObjectKey,
  userFileObjectKey,
  userObjectPrefixes,
} from '../../storage/keys.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/** DeleteObjects takes at most 1,000 keys a call. */
const DELETE_BATCH = 1000;

export class S3BlobStore implements BlobStore, BlobVersions, UploadSigner, DownloadSigner {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(client: S3Client, bucket: string) {
    this.client = client;
    this.bucket = bucket;
  }

  async put(
    key: string,
    content: Uint8Array,
    options: { readonly contentType: string; readonly sha256?: string },
  ): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: content,
        ContentLength: content.byteLength,
        ContentType: options.contentType,
        // S3 checks the bytes against it and answers 400 BadDigest, storing nothing, when they
        // differ; given, it is the only checksum the SDK sends.
        ...(options.sha256 === undefined ? {} : { ChecksumSHA256: options.sha256 }),
      }),
    );
  }

  async digest(key: string, options: { readonly versionId?: string } = {}): Promise<string> {
    try {
      const { Body } = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(options.versionId === undefined ? {} : { VersionId: options.versionId }),
        }),
      );
      const hash = createHash('sha256');
      // Streamed: a 50 MiB object is hashed in the SDK's chunks, never held whole.
      for await (const chunk of Body as AsyncIterable<Uint8Array>) hash.update(chunk);
      return hash.digest('base64');
    } catch (error) {
      throw notThere(key, error);
    }
  }

  async head(key: string): Promise<StoredVersion | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return {
        size: head.ContentLength ?? 0,
        contentType: head.ContentType,
        etag: head.ETag ?? '',
        // S3 names the version of an object written while the bucket was unversioned `null`.
        versionId: head.VersionId ?? 'null',
      };
    } catch (error) {
      if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound') {
        return undefined;
      }
      throw error;
    }
  }

  async listed(key: string): Promise<StoredBlob | undefined> {
    // The key itself sorts first among the keys it prefixes.
    const { Contents = [] } = await this.client.send(
      new ListObjectsV2Command({ Bucket: this.bucket, Prefix: key, MaxKeys: 1 }),
    );
    const object = Contents[0];
    if (object?.Key !== key) return undefined;
    return { size: object.Size ?? 0, contentType: undefined, etag: object.ETag ?? '' };
  }

  async copy(
    sourceKey: string,
    key: string,
    options: { readonly versionId?: string } = {},
  ): Promise<CopiedBlob> {
    const path = `${this.bucket}/${sourceKey.split('/').map(encodeURIComponent).join('/')}`;
    // The version in the source itself: S3 copies that one, or none (404 NoSuchVersion).
    const version =
      options.versionId === undefined ? '' : `?versionId=${encodeURIComponent(options.versionId)}`;
    try {
      const { CopyObjectResult } = await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: key,
          CopySource: `${path}${version}`,
          // Every copy lands where the malware scan holds downloads by tag: the copy starts
          // with none (the source's verdict is not this object's), and is scanned itself.
          TaggingDirective: 'REPLACE',
          // S3 works out the SHA-256 of the source it copied, keeps it with the copy and
          // answers it: what the caller holds the copy to.
          ChecksumAlgorithm: 'SHA256',
        }),
      );
      return { etag: CopyObjectResult?.ETag ?? '', sha256: CopyObjectResult?.ChecksumSHA256 };
    } catch (error) {
      throw notThere(sourceKey, error);
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async *versionsUnder(prefix: string): AsyncGenerator<readonly BlobVersion[]> {
    let keyMarker: string | undefined;
    let versionIdMarker: string | undefined;
    for (;;) {
      const page = await this.client.send(
        new ListObjectVersionsCommand({
          Bucket: this.bucket,
          Prefix: prefix,
          ...(keyMarker === undefined ? {} : { KeyMarker: keyMarker }),
          ...(versionIdMarker === undefined ? {} : { VersionIdMarker: versionIdMarker }),
        }),
      );
      yield [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((version) => ({
        key: version.Key ?? '',
        versionId: version.VersionId ?? 'null',
        isLatest: version.IsLatest === true,
      }));
      if (page.IsTruncated !== true) return;
      keyMarker = page.NextKeyMarker;
      versionIdMarker = page.NextVersionIdMarker;
    }
  }

  async deleteVersions(versions: readonly BlobVersion[]): Promise<void> {
    if (versions.length === 1 && versions[0] !== undefined) {
      // One version, one call whose failure is the call's own.
      const { key, versionId } = versions[0];
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.bucket, Key: key, VersionId: versionId }),
      );
      return;
    }
    for (let start = 0; start < versions.length; start += DELETE_BATCH) {
      const batch = versions.slice(start, start + DELETE_BATCH);
      const { Errors } = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: {
            Quiet: true,
            Objects: batch.map(({ key, versionId }) => ({ Key: key, VersionId: versionId })),
          },
        }),
      );
      const failed = Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new Error(
          `${failed.length} object versions would not go, the first ${first?.Key ?? ''} (${first?.Code ?? ''}: ${first?.Message ?? ''})`,
        );
      }
    }
  }

  userFileKey(userId: number, fileId: number): string {
    return userFileObjectKey(userId, fileId);
  }

  directUploadKey(userId: number, fileId: number): string {
    return directUploadObjectKey(userId, fileId);
  }

  dealFileKey(groupId: number, dealId: number, fileId: number): string {
    return dealFileObjectKey(groupId, dealId, fileId);
  }

  userKeyPrefixes(userId: number): readonly string[] {
    return userObjectPrefixes(userId);
  }

  locationOf(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  async signUpload(
    key: string,
    options: Parameters<UploadSigner['signUpload']>[1],
  ): Promise<UploadForm> {
    const metadata = Object.fromEntries(
      Object.entries(options.metadata).map(([name, value]) => [`x-amz-meta-${name}`, value]),
    );
    // S3 checks a POST's bytes against a declared checksum as a PUT's (the POST Object
    // reference's `x-amz-checksum-algorithm` and `x-amz-checksum-sha256` fields), and the
    // policy signs the value, so the form takes no other bytes.
    const checksum: Record<string, string> =
      options.sha256 === undefined
        ? {}
        : { 'x-amz-checksum-algorithm': 'SHA256', 'x-amz-checksum-sha256': options.sha256 };
    const fields = { 'Content-Type': options.contentType, ...metadata, ...checksum };
    const { url, fields: signed } = await createPresignedPost(this.client, {
      Bucket: this.bucket,
      Key: key,
      Fields: fields,
      Conditions: [
        ['content-length-range', 1, options.maxBytes],
        ...Object.entries(fields).map(([name, value]) => ({ [name]: value })),
      ],
      Expires: options.expiresInSeconds,
    });
    return { url, fields: signed };
  }

  async signDownload(
    key: string,
    options: Parameters<DownloadSigner['signDownload']>[1],
  ): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ResponseContentDisposition: attachmentDisposition(options.downloadName),
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }
}

/**
 * S3's answer for an object that is not there, as the port names it: the key has none
 * (NoSuchKey), or not the version named (NoSuchVersion; a GET of a delete marker's id, 405).
 */
function notThere(key: string, error: unknown): unknown {
  const name = (error as { name?: string }).name;
  if (error instanceof NoSuchKey || name === 'NoSuchKey') {
    return new BlobNotFoundError(key, { cause: error });
  }
  if (name === 'NoSuchVersion' || name === 'MethodNotAllowed') {
    return new BlobChangedError(key, { cause: error });
  }
  return error;
}

/** File bytes in the bucket, and the forms and links that reach them. */
export const blobs = ({ s3, BUCKET_NAME }: Pick<AdapterSources, 's3' | 'BUCKET_NAME'>) =>
  new S3BlobStore(s3(), BUCKET_NAME);
