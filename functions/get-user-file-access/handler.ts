import middy from '@middy/core';
import { readOwnFileAccess } from '#shared/access-reports/read-own-file-access.ts';
import {
  fileAccessAnswer,
  getUserFileAccessRequest,
} from '#shared/access-reports/api/own-file-access.ts';
import { trailQueries } from '#shared/access-reports/adapters/dynamo-trail-queries.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { compressWhenAccepted } from '#shared/http/list-answer.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { getUserFileAccessFunction } from './function.ts';

/**
 * GET /api/v1/user/me/file/{file_id}/access (extension): the owner's own entries about their
 * file, a page at a time, and each deal room holding a copy, counted.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'userFiles' | 'trailQueries'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(getUserFileAccessRequest, settings))
    .use(compressWhenAccepted())
    .handler<ApiEvent, ApiResult>(async ({ userId, input, rawPath }, _context, { signal }) => {
      const access = await readOwnFileAccess(
        { userFiles: adapters.userFiles, trail: adapters.trailQueries },
        {
          userId,
          fileId: input.path.file_id,
          page: {
            limit: input.query.limit ?? MAX_PAGE_SIZE,
            ...(input.query.cursor === undefined ? {} : { after: input.query.cursor }),
            signal,
          },
        },
      );
      const { body, headers } = fileAccessAnswer(rawPath, input.query, access);
      return jsonResponse(200, body, headers);
    });

export const handler = lambdaEntry(getUserFileAccessFunction.variables, (env) =>
  createHandler(
    composeAdapters({ ...env, documents: documentClient }, { userFiles, trailQueries }),
    env,
  ),
);
