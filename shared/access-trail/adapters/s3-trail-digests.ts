import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  ListObjectsV2Command,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../blobs/adapters/s3-blob-store.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';
import type { DigestStore } from '../digest-store.ts';

/** Where digests are, in their bucket: one object a seq, named so that text order is seq order. */
export const DIGEST_PREFIX = 'access-trail/digests/';
const SEQ_DIGITS = 12;
const digestKey = (seq: number): string =>
  `${DIGEST_PREFIX}${String(seq).padStart(SEQ_DIGITS, '0')}.json`;
const DIGEST_KEY = new RegExp(`^${DIGEST_PREFIX}(\\d{${String(SEQ_DIGITS)}})\\.json$`);
const seqOf = (key: string | undefined): number | undefined => {
  const digits = DIGEST_KEY.exec(key ?? '')?.[1];
  return digits === undefined ? undefined : Number(digits);
};

/** What S3 answers a conditional write that finds the key taken, or being taken. */
const TAKEN = new Set(['PreconditionFailed', 'ConditionalRequestConflict']);

/**
 * The digests in their own bucket (the data stack's AccessTrailDigestBucket): S3 Object Lock,
 * compliance mode, for the retention; a bucket policy refusing any delete, and any put without
 * `If-None-Match`. Each is written with `If-None-Match: *`, so none is ever replaced, with its
 * checksums, which a bucket with a default retention requires of every put.
 */
export class S3TrailDigests implements DigestStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  /** Keys a listing asks for at once (S3's page, 1,000; less in tests). */
  private readonly pageSize: number;

  constructor(client: S3Client, bucket: string, pageSize = 1000) {
    this.client = client;
    this.bucket = bucket;
    this.pageSize = pageSize;
  }

  async latest(): Promise<{ readonly seq: number; readonly bytes: Uint8Array } | undefined> {
    const seq = await this.highestSeq();
    if (seq === undefined) return undefined;
    const bytes = await this.read(seq);
    if (bytes === undefined) throw new Error(`Digest ${String(seq)} was listed, then not found`);
    return { seq, bytes };
  }

  async seqs(): Promise<number[]> {
    const seqs: number[] = [];
    const pages = paginateListObjectsV2(
      { client: this.client, pageSize: this.pageSize },
      { Bucket: this.bucket, Prefix: DIGEST_PREFIX },
    );
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        const seq = seqOf(object.Key);
        if (seq !== undefined) seqs.push(seq);
      }
    }
    return seqs;
  }

  /**
   * Every version and delete marker under the prefix: a digest is written once, so a key with
   * more than one, or a marker, was deleted or written over. The bucket's policy refuses both;
   * only a changed policy lets them, and Object Lock keeps the version written first.
   */
  async rewritten(): Promise<number[]> {
    const versions = new Map<number, number>();
    const listed = new S3BlobStore(this.client, this.bucket).versionsUnder(DIGEST_PREFIX);
    for await (const page of listed) {
      for (const { key } of page) {
        const seq = seqOf(key);
        if (seq !== undefined) versions.set(seq, (versions.get(seq) ?? 0) + 1);
      }
    }
    return [...versions]
      .filter(([, count]) => count > 1)
      .map(([seq]) => seq)
      .sort((a, b) => a - b);
  }

  async read(seq: number): Promise<Uint8Array | undefined> {
    try {
      const { Body } = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: digestKey(seq) }),
      );
      return Body === undefined ? new Uint8Array() : await Body.transformToByteArray();
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async create(seq: number, bytes: Uint8Array): Promise<'created' | 'taken'> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: digestKey(seq),
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: 'application/json',
          IfNoneMatch: '*',
          ContentMD5: createHash('md5').update(bytes).digest('base64'),
          ChecksumSHA256: createHash('sha256').update(bytes).digest('base64'),
        }),
      );
      return 'created';
    } catch (error) {
      if (TAKEN.has((error as { name?: string }).name ?? '')) return 'taken';
      throw error;
    }
  }

  /**
   * The highest seq stored, in a few listings however many there are: seqs are dense, so
   * from a seq known to be there it gallops (listing what follows ever further on) until a
   * listing finds nothing, then halves the gap; a listing that ends short names the last.
   * A year's 105,000 digests take about 14 listings, where reading them all would take 105.
   */
  private async highestSeq(): Promise<number | undefined> {
    let known = 0; // a seq that is there, or 0: no key sorts before the first
    let beyond: number | undefined; // nothing is listed after it
    let step = this.pageSize;
    for (;;) {
      const probe =
        beyond === undefined
          ? known + (known === 0 ? 0 : step)
          : beyond - known <= this.pageSize
            ? known // what follows fits in one listing
            : Math.floor((known + beyond) / 2);
      const { Contents = [], IsTruncated } = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: DIGEST_PREFIX,
          MaxKeys: this.pageSize,
          ...(probe === 0 ? {} : { StartAfter: digestKey(probe) }),
        }),
      );
      const last = seqOf(Contents.at(-1)?.Key);
      if (last !== undefined && IsTruncated !== true) return last;
      if (last !== undefined) {
        known = last;
        step *= 2;
      } else if (probe <= known) {
        return known === 0 ? undefined : known;
      } else {
        beyond = probe;
      }
    }
  }
}

/** The digests, in the bucket the stage names for them. */
export const trailDigests = (sources: Pick<AdapterSources, 's3' | 'TRAIL_DIGEST_BUCKET_NAME'>) =>
  new S3TrailDigests(sources.s3(), sources.TRAIL_DIGEST_BUCKET_NAME);
