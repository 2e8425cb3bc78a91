import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { DynamoUserFileRepository } from '#shared/adapters/dynamo-user-file-repository.ts';
import { listUserFiles } from '#shared/user-files/list-user-files.ts';
import { toUserFileBody } from '#shared/user-files/user-file-response.ts';

const files = new DynamoUserFileRepository(documentClient(), requiredEnv('TABLE_NAME'));

/** GET /api/v1/user/me/file: every file the caller owns, newest first. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .handler<ApiEvent, ApiResult>(async ({ userId }) => {
    const owned = await listUserFiles(files, userId);
    return jsonResponse(200, owned.map(toUserFileBody));
  });
