import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { updateUserFileRequest } from '#shared/user-files/api/user-file-update.ts';
import { updateUserFile } from '#shared/user-files/update-user-file.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { updateUserFileFunction } from './function.ts';

/** PATCH /api/v1/user/me/file/{file_id} (extension): the owner renames or (un)archives a file. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'userFiles'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) => {
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(updateUserFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const { input } = event;
      const { name, is_archived: isArchived } = input.body;
      const file = await updateUserFile(adapters, {
        requester: requesterOf(event),
        fileId: input.path.file_id,
        changes: {
          ...(name === undefined ? {} : { name }),
          ...(isArchived === undefined ? {} : { isArchived }),
        },
      });
      return jsonResponse(200, toUserFileBody(file));
    });
};

export const handler = lambdaEntry(updateUserFileFunction.variables, (env) =>
  createHandler(composeAdapters({ ...env, documents: documentClient }, { userFiles }), env),
);
