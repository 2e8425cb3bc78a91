import middy from '@middy/core';
import { FUNCTION_ENVIRONMENT } from '#shared/config/function-environment.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { listUserFiles } from '#shared/user-files/list-user-files.ts';
import { toUserFileBody } from '#shared/schemas/user-file-response.ts';
import * as deployed from '#shared/wiring/deployed-adapters.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters, ServiceSettings } from '#shared/wiring/service-adapters.ts';

/** GET /api/v1/user/me/file: every file the caller owns, newest first. */
export const createHandler = (
  { userFiles }: Pick<ServiceAdapters, 'userFiles'>,
  settings: Pick<ServiceSettings, 'USER_ID_CLAIM'>,
) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .handler<ApiEvent, ApiResult>(async ({ userId }) => {
      const owned = await listUserFiles(userFiles, userId);
      return jsonResponse(200, owned.map(toUserFileBody));
    });

export const handler = lambdaEntry(FUNCTION_ENVIRONMENT.ListUserFiles, (env) =>
  createHandler({ userFiles: deployed.userFiles(env) }, env),
);
