import type { S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import type { DownloadSigner, UploadSigner } from '#shared/blobs/blob-store.ts';

/**
 * The deployed S3 adapter, whose upload forms and download links are signed for the stage's
 * public endpoint (another machine's browser uses them), while its own calls stay on the
 * endpoint the handlers reach S3 by. Signing makes no call: only the URL in it differs.
 */
export class PublicLinkBlobStore extends S3BlobStore {
  private readonly links: S3BlobStore;

  constructor(client: S3Client, linkClient: S3Client, bucket: string) {
    super(client, bucket);
    this.links = new S3BlobStore(linkClient, bucket);
  }

  override signUpload(
    key: string,
    options: Parameters<UploadSigner['signUpload']>[1],
  ): ReturnType<UploadSigner['signUpload']> {
    return this.links.signUpload(key, options);
  }

  override signDownload(
    key: string,
    options: Parameters<DownloadSigner['signDownload']>[1],
  ): ReturnType<DownloadSigner['signDownload']> {
    return this.links.signDownload(key, options);
  }
}
