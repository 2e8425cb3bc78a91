import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { S3BlobStore } from '#shared/adapters/s3-blob-store.ts';
import { s3Client } from '#shared/adapters/aws/s3.ts';
import { requiredEnv } from '#shared/config.ts';
import { deleteDealFile } from '#shared/deal-files/delete-deal-file.ts';
import { DynamoDealFileRepository } from '#shared/adapters/dynamo-deal-file-repository.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { deleteDealFileRequest } from '#shared/schemas/deal-file.ts';

const ports = {
  files: new DynamoDealFileRepository(documentClient(), requiredEnv('TABLE_NAME')),
  blobs: new S3BlobStore(s3Client(), requiredEnv('BUCKET_NAME')),
};

/** DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} (extension): editors; 204. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(deleteDealFileRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const { group_id: groupId, deal_id: dealId, file_id: fileId } = input.path;
    await deleteDealFile(ports, { userId, deal: { groupId, dealId }, fileId });
    return { statusCode: 204, body: '' };
  });
