import middy from '@middy/core';
import { documentClient, dynamoDbClient } from '#shared/adapters/aws/dynamodb.ts';
import { S3BlobStore } from '#shared/adapters/s3-blob-store.ts';
import { s3Client } from '#shared/adapters/aws/s3.ts';
import { requiredEnv } from '#shared/config.ts';
import { FILE_ID_SEQUENCE, IDEMPOTENT_OPERATIONS } from '#shared/data/keys.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { IDEMPOTENCY_HEADER, idempotentPerKey } from '#shared/http/idempotency-key.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { DynamoBlockIdAllocator } from '#shared/adapters/dynamo-block-id-allocator.ts';
import { uploadUserFileRequest } from '#shared/schemas/user-file-upload.ts';
import { DynamoUserFileRepository } from '#shared/adapters/dynamo-user-file-repository.ts';
import { UPLOAD_FORM_LIMITS } from '#shared/user-files/upload-form-limits.ts';
import { uploadFingerprint } from '#shared/user-files/upload-fingerprint.ts';
import { type NewUserFile, uploadUserFile } from '#shared/user-files/upload-user-file.ts';
import { toUserFileBody } from '#shared/user-files/user-file-response.ts';

const tableName = requiredEnv('TABLE_NAME');
const ports = {
  ids: new DynamoBlockIdAllocator(documentClient(), tableName, { sequence: FILE_ID_SEQUENCE }),
  blobs: new S3BlobStore(s3Client(), requiredEnv('BUCKET_NAME')),
  files: new DynamoUserFileRepository(documentClient(), tableName),
};
const upload = async (file: NewUserFile) => toUserFileBody(await uploadUserFile(ports, file));
const uploadOnce = idempotentPerKey(IDEMPOTENT_OPERATIONS.uploadUserFile, upload, {
  client: dynamoDbClient(),
  tableName,
});

/**
 * POST /api/v1/user/me/file: the contract's multipart upload. On AWS, API Gateway's payload
 * limit caps it near 4.4 MB; larger files take the direct-to-S3 upload.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(uploadUserFileRequest, { form: UPLOAD_FORM_LIMITS }))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }, context) => {
    const { file, name, type } = input.form;
    const newFile = { userId, name, type, content: file.content, contentType: file.contentType };
    const key = input.header[IDEMPOTENCY_HEADER];
    const created =
      key === undefined
        ? await upload(newFile)
        : await uploadOnce(
            newFile,
            { userId, key, fingerprint: uploadFingerprint(newFile) },
            context,
          );
    return jsonResponse(201, created);
  });
