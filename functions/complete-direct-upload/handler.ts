import middy from '@middy/core';
import { completeDirectUpload } from '#shared/direct-uploads/complete-direct-upload.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { countCompletion, countRefusal } from '#shared/observability/direct-upload-metrics.ts';
import { completeDirectUploadRequest } from '#shared/direct-uploads/api/direct-upload.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { directUploads } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { completeDirectUploadFunction } from './function.ts';

/**
 * POST /api/v1/user/me/file/upload/{file_id}/complete (extension): the UserFile a direct
 * upload became, creating it if the S3 event has not yet. Every call answers the same.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'directUploads' | 'userFiles' | 'blobs'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | 'MALWARE_SCANNING'>,
) => {
  const ports = { ...adapters, scanning: settings.MALWARE_SCANNING === 'on' };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(completeDirectUploadRequest, settings))
    .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
      const completion = await completeDirectUpload(ports, userId, input.path.file_id).catch(
        (error: unknown) => {
          countRefusal(error);
          throw error;
        },
      );
      countCompletion(completion);
      return jsonResponse(201, toUserFileBody(completion.file));
    });
};

export const handler = lambdaEntry(completeDirectUploadFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      { directUploads, userFiles, blobs },
    ),
    env,
  ),
);
