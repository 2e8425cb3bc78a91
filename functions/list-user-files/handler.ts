import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { compressWhenAccepted } from '#shared/http/list-answer.ts';
import { listTooLarge } from '#shared/http/list-too-large.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { listUserFiles } from '#shared/user-files/list-user-files.ts';
import { listOptionsOf, nextPageLink } from '#shared/http/list-page.ts';
import { listUserFilesRequest } from '#shared/user-files/api/user-file.ts';
import { toUserFileBody } from '#shared/user-files/api/user-file-response.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { listUserFilesFunction } from './function.ts';

/**
 * GET /api/v1/user/me/file: every file the caller owns, newest first; one page of them with
 * `limit` or `cursor` (our extension), the next page in the `Link` header.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'userFiles'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi({ answerTooLarge: listTooLarge }))
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(listUserFilesRequest, settings))
    .use(compressWhenAccepted())
    .handler<ApiEvent, ApiResult>(async ({ userId, input, rawPath }, _context, { signal }) => {
      const owned = await listUserFiles(
        adapters.userFiles,
        userId,
        listOptionsOf(input.query, signal),
      );
      const link = nextPageLink(rawPath, input.query, owned);
      return jsonResponse(200, owned.items.map(toUserFileBody), link);
    });

export const handler = lambdaEntry(listUserFilesFunction.variables, (env) =>
  createHandler(composeAdapters({ ...env, documents: documentClient }, { userFiles }), env),
);
