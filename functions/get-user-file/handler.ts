import middy from '@middy/core';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { fileDigestHeaders } from '#shared/http/file-digest-header.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { getUserFileRequest } from '#shared/user-files/api/user-file.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { findUserFile } from '#shared/user-files/find-user-file.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { getUserFileFunction } from './function.ts';

/**
 * GET /api/v1/user/me/file/{file_id} (extension): the caller's file, as the list shows it.
 * The key is the caller's own partition, so anyone else's id is simply not found.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'userFiles'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(getUserFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
      const file = await findUserFile(adapters, userId, input.path.file_id);
      return jsonResponse(200, toUserFileBody(file), fileDigestHeaders(file));
    });

export const handler = lambdaEntry(getUserFileFunction.variables, (env) =>
  createHandler(composeAdapters({ ...env, documents: documentClient }, { userFiles }), env),
);
