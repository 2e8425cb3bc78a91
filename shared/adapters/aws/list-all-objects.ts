import { ListObjectsCommand, type S3Client, type _Object } from '@aws-sdk/client-s3';

/**
 * Every current object of a bucket (under `prefix`, if given), page by page. Pages follow on from the last key with the
 * original ListObjects' `Marker`, which S3 still serves: s3rver answers a truncated
 * ListObjectsV2 with a continuation token made with a DES cipher that Node 24's OpenSSL 3 no
 * longer has, so V2 fails there past 1,000 objects.
 */
export async function* listAllObjects(
  client: S3Client,
  bucket: string,
  prefix?: string,
): AsyncGenerator<readonly _Object[]> {
  let marker: string | undefined;
  for (;;) {
    const page = await client.send(
      new ListObjectsCommand({
        Bucket: bucket,
        ...(prefix === undefined ? {} : { Prefix: prefix }),
        ...(marker === undefined ? {} : { Marker: marker }),
      }),
    );
    const objects = page.Contents ?? [];
    yield objects;
    marker = objects.at(-1)?.Key;
    if (page.IsTruncated !== true || marker === undefined) return;
  }
}
