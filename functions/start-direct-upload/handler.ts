import middy from '@middy/core';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { startDirectUploadRequest } from '#shared/direct-uploads/api/direct-upload.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { directUploads } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { fileIds } from '#shared/storage/dynamo-block-id-allocator.ts';
import { usage } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import { type ServiceAdapters, storageLimitsOf } from '#shared/wiring/service-adapters.ts';
import { startDirectUploadFunction } from './function.ts';
import type { HandlerSettings, StorageLimitSetting } from '#shared/config/environment.ts';

/**
 * POST /api/v1/user/me/file/upload (extension): a signed S3 POST form, so a file of up to
 * 50 MiB goes straight to S3 and becomes a UserFile when it lands.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'fileIds' | 'directUploads' | 'blobs' | 'usage'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | StorageLimitSetting>,
) => {
  const ports = { ...adapters, limits: storageLimitsOf(settings) };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(startDirectUploadRequest, settings))
    .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
      const { name, type, filesize, content_type, sha256 } = input.body;
      const ticket = await startDirectUpload(ports, {
        userId,
        name,
        type,
        filesize,
        contentType: content_type ?? 'application/octet-stream',
        ...(sha256 === undefined || sha256 === null ? {} : { sha256 }),
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
};

export const handler = lambdaEntry(startDirectUploadFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      { fileIds, directUploads, blobs, usage },
    ),
    env,
  ),
);
