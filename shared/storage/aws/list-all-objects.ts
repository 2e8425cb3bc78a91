import { paginateListObjectsV2, type S3Client, type _Object } from '@aws-sdk/client-s3';

/** Every current object of a bucket (under `prefix`, if given), page by page. */
export async function* listAllObjects(
  client: S3Client,
  bucket: string,
  prefix?: string,
): AsyncGenerator<readonly _Object[]> {
  for await (const page of paginateListObjectsV2(
    { client },
    { Bucket: bucket, ...(prefix === undefined ? {} : { Prefix: prefix }) },
  )) {
    yield page.Contents ?? [];
  }
}
