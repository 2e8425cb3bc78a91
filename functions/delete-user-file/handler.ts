import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { cancelDirectUpload } from '#shared/direct-uploads/cancel-direct-upload.ts';
import { type DeleteUserFilePorts, deleteUserFile } from '#shared/user-files/delete-user-file.ts';
import { deleteUserFileRequest } from '#shared/user-files/api/user-file-update.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { directUploads } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import { type ServiceAdapters, storageLimitsOf } from '#shared/wiring/service-adapters.ts';
import { deleteUserFileFunction } from './function.ts';
import type { HandlerSettings, StorageLimitSetting } from '#shared/config/environment.ts';

/**
 * DELETE /api/v1/user/me/file/{file_id} (extension): the owner deletes a file for good, or
 * cancels the direct upload of that id.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'userFiles' | 'directUploads' | 'blobs'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | StorageLimitSetting>,
) => {
  const ports: DeleteUserFilePorts = {
    ...adapters,
    limits: storageLimitsOf(settings),
    cancelUpload: (userId, fileId) => cancelDirectUpload(adapters, userId, fileId),
  };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(deleteUserFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      await deleteUserFile(ports, requesterOf(event), event.input.path.file_id);
      return { statusCode: 204, body: '' };
    });
};

export const handler = lambdaEntry(deleteUserFileFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      { userFiles, directUploads, blobs },
    ),
    env,
  ),
);
