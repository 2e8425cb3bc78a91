import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { S3BlobStore } from '#shared/adapters/s3-blob-store.ts';
import { s3Client } from '#shared/adapters/aws/s3.ts';
import { requiredEnv } from '#shared/config.ts';
import { FILE_ID_SEQUENCE } from '#shared/data/keys.ts';
import { DynamoDirectUploadRepository } from '#shared/adapters/dynamo-direct-upload-repository.ts';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { DynamoBlockIdAllocator } from '#shared/adapters/dynamo-block-id-allocator.ts';
import { startDirectUploadRequest } from '#shared/schemas/direct-upload.ts';

const tableName = requiredEnv('TABLE_NAME');
const ports = {
  ids: new DynamoBlockIdAllocator(documentClient(), tableName, { sequence: FILE_ID_SEQUENCE }),
  uploads: new DynamoDirectUploadRepository(documentClient(), tableName),
  signer: new S3BlobStore(s3Client(), requiredEnv('BUCKET_NAME')),
};

/**
 * POST /api/v1/user/me/file/upload (extension): a signed S3 POST form, so a file of up to
 * 50 MiB goes straight to S3 and becomes a UserFile when it lands.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(startDirectUploadRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const { name, type, filesize, content_type } = input.body;
    const ticket = await startDirectUpload(ports, {
      userId,
      name,
      type,
      filesize,
      contentType: content_type ?? 'application/octet-stream',
    });
    return jsonResponse(201, {
      id: ticket.id,
      key: ticket.key,
      url: ticket.url,
      fields: ticket.fields,
      expires_at: ticket.expiresAt,
      max_filesize: ticket.maxFilesize,
    });
  });
