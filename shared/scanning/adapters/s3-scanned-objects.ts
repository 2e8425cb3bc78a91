import {
  CopyObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutObjectTaggingCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { FileRef, ScannedObjects } from '../file-scans.ts';
import {
  fileObjectKey,
  SCAN_RELEASE_TAG,
  SCAN_RELEASED_VALUE,
  SCAN_STATUS_TAG,
} from '../../storage/keys.ts';

/**
 * The bucket's side of an operator's decision on a held file. On a deployed stage its client
 * acts as the data stack's releaser role, the one principal besides GuardDuty's that the
 * bucket's policy lets tag, and read, a held object.
 */
export class S3ScannedObjects implements ScannedObjects {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(client: S3Client, bucket: string) {
    this.client = client;
    this.bucket = bucket;
  }

  keyOf(file: FileRef): string {
    return fileObjectKey(file);
  }

  async release(key: string): Promise<void> {
    // A tag set is written whole: GuardDuty's verdict stays beside the release.
    const { TagSet = [] } = await this.client.send(
      new GetObjectTaggingCommand({ Bucket: this.bucket, Key: key }),
    );
    const kept = TagSet.filter((tag) => tag.Key !== SCAN_RELEASE_TAG);
    await this.client.send(
      new PutObjectTaggingCommand({
        Bucket: this.bucket,
        Key: key,
        Tagging: { TagSet: [...kept, { Key: SCAN_RELEASE_TAG, Value: SCAN_RELEASED_VALUE }] },
      }),
    );
  }

  async verdictOf(key: string): Promise<string | undefined> {
    try {
      const { TagSet = [] } = await this.client.send(
        new GetObjectTaggingCommand({ Bucket: this.bucket, Key: key }),
      );
      return TagSet.find((tag) => tag.Key === SCAN_STATUS_TAG)?.Value;
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async rescan(key: string): Promise<void> {
    // S3 copies an object onto itself only when something changes: the metadata is written
    // anew, the same. The copy is a new version, with no tags, which the scanner scans.
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: key,
        CopySource: `${this.bucket}/${key}`,
        MetadataDirective: 'REPLACE',
        ...(head.ContentType === undefined ? {} : { ContentType: head.ContentType }),
        Metadata: head.Metadata ?? {},
        TaggingDirective: 'REPLACE',
      }),
    );
  }
}
