import middy from '@middy/core';
import { documentClient } from '#shared/adapters/aws/dynamodb.ts';
import { requiredEnv } from '#shared/config.ts';
import { toDealFileBody } from '#shared/deal-files/deal-file-response.ts';
import { DynamoDealFileRepository } from '#shared/adapters/dynamo-deal-file-repository.ts';
import { updateDealFile } from '#shared/deal-files/update-deal-file.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { updateDealFileRequest } from '#shared/schemas/deal-file.ts';

const ports = { files: new DynamoDealFileRepository(documentClient(), requiredEnv('TABLE_NAME')) };

/** PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}: an editor sets a file's type. */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(updateDealFileRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const { group_id: groupId, deal_id: dealId, file_id: fileId } = input.path;
    const file = await updateDealFile(ports, {
      userId,
      deal: { groupId, dealId },
      fileId,
      changes: input.body,
    });
    return jsonResponse(200, toDealFileBody(file));
  });
