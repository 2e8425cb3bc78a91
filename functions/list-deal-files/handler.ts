import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import { toDealFileBody } from '#shared/deal-files/deal-file-response.ts';
import { DynamoDealFileRepository } from '#shared/adapters/dynamo-deal-file-repository.ts';
import { listDealFiles } from '#shared/deal-files/list-deal-files.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { listDealFilesRequest } from '#shared/schemas/deal-file.ts';

const files = new DynamoDealFileRepository(documentClient(), requiredEnv('TABLE_NAME'));

/** GET /api/v1/group/{group_id}/deal/{deal_id}/file (extension): the deal's files, to members. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(listDealFilesRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const { group_id: groupId, deal_id: dealId } = input.path;
    const listed = await listDealFiles(files, userId, { groupId, dealId });
    return jsonResponse(200, listed.map(toDealFileBody));
  });
