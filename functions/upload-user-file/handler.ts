import middy from '@middy/core';
import { IDEMPOTENT_OPERATIONS } from '#shared/storage/keys.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { IDEMPOTENCY_HEADER, idempotentPerKey } from '#shared/http/idempotency-key.ts';
import { readForm } from '#shared/http/fastapi/multipart-form.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { uploadUserFileRequest } from '#shared/user-files/api/user-file-upload.ts';
import { UPLOAD_FORM_LIMITS } from '#shared/user-files/api/upload-form-limits.ts';
import { uploadFingerprint } from '#shared/user-files/upload-fingerprint.ts';
import { type NewUserFile, uploadUserFile } from '#shared/user-files/upload-user-file.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { recordMetric } from '#shared/observability/metrics.ts';
import { documentClient, dynamoDbClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { fileIds } from '#shared/storage/dynamo-block-id-allocator.ts';
import { idempotency } from '#shared/storage/idempotency-store.ts';
import { usage } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import { type ServiceAdapters, storageLimitsOf } from '#shared/wiring/service-adapters.ts';
import { uploadUserFileFunction } from './function.ts';
import type { HandlerSettings, StorageLimitSetting } from '#shared/config/environment.ts';

/**
 * POST /api/v1/user/me/file: the contract's multipart upload. Multipart uploads take files up
 * to 4.7 MB (4,700,000 bytes) on every stage (Lambda's 6 MiB event holds the base64 form);
 * larger files take the direct-to-S3 upload.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'fileIds' | 'blobs' | 'userFiles' | 'idempotency' | 'usage'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | 'MALWARE_SCANNING' | StorageLimitSetting>,
) => {
  const ports = {
    ...adapters,
    scanning: settings.MALWARE_SCANNING === 'on',
    limits: storageLimitsOf(settings),
  };
  const upload = idempotentPerKey(
    IDEMPOTENT_OPERATIONS.uploadUserFile,
    async (file: NewUserFile) => {
      const uploaded = await uploadUserFile(ports, file);
      recordMetric('MultipartUploads');
      recordMetric('MultipartUploadBytes', uploaded.filesize);
      return toUserFileBody(uploaded);
    },
    adapters.idempotency,
  );
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(
      validateRequest(uploadUserFileRequest, settings, {
        readForm: (event) => readForm(event, UPLOAD_FORM_LIMITS),
      }),
    )
    .handler<ApiEvent, ApiResult>(async ({ userId, input }, context) => {
      const { file, name, type } = input.form;
      const newFile = { userId, name, type, content: file.content, contentType: file.contentType };
      const key = input.header[IDEMPOTENCY_HEADER];
      const fingerprint = () => uploadFingerprint(newFile);
      const created = await upload(newFile, { userId, key, fingerprint }, context);
      return jsonResponse(201, created);
    });
};

export const handler = lambdaEntry(uploadUserFileFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, dynamodb: dynamoDbClient, documents: documentClient, s3: s3Client },
      { fileIds, blobs, userFiles, idempotency, usage },
    ),
    env,
  ),
);
