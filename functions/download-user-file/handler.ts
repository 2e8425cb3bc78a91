import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { S3BlobStore } from '#shared/adapters/s3-blob-store.ts';
import { s3Client } from '#shared/adapters/aws/s3.ts';
import { requiredEnv } from '#shared/config.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { downloadUserFileRequest } from '#shared/schemas/direct-upload.ts';
import { DynamoUserFileRepository } from '#shared/adapters/dynamo-user-file-repository.ts';
import { userFileDownloadLink } from '#shared/user-files/user-file-download.ts';

const ports = {
  files: new DynamoUserFileRepository(documentClient(), requiredEnv('TABLE_NAME')),
  signer: new S3BlobStore(s3Client(), requiredEnv('BUCKET_NAME')),
};

/** GET /api/v1/user/me/file/{file_id}/download (extension): 302 to a 5-minute S3 link. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(downloadUserFileRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const url = await userFileDownloadLink(ports, userId, input.path.file_id);
    return { statusCode: 302, headers: { location: url, 'cache-control': 'no-store' }, body: '' };
  });
