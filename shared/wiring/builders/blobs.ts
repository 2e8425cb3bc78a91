import { S3BlobStore } from '../../adapters/s3-blob-store.ts';
import type { AdapterSources } from '../adapter-sources.ts';

/** File bytes in the bucket, and the forms and links that reach them. */
export const blobs = ({ s3, BUCKET_NAME }: Pick<AdapterSources, 's3' | 'BUCKET_NAME'>) =>
  new S3BlobStore(s3(), BUCKET_NAME);
