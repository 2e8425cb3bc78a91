import middy from '@middy/core';
import { toDealFileBody } from '#shared/deal-files/api/deal-file-response.ts';
import { updateDealFile } from '#shared/deal-files/update-deal-file.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { refusalNotRecorded } from '#shared/observability/metrics.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { updateDealFileRequest } from '#shared/deal-files/api/deal-file.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { dealFiles } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { updateDealFileFunction } from './function.ts';

/** PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}: an editor sets a file's type. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealFiles' | 'accessTrail'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) => {
  const ports = { ...adapters, refusalNotRecorded };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(updateDealFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const { input } = event;
      const { group_id: groupId, deal_id: dealId, file_id: fileId } = input.path;
      const requester = requesterOf(event);
      const file = await updateDealFile(ports, {
        requester,
        deal: { groupId, dealId },
        fileId,
        changes: input.body,
      });
      return jsonResponse(200, toDealFileBody(file));
    });
};

export const handler = lambdaEntry(updateDealFileFunction.variables, (env) =>
  createHandler(
    composeAdapters({ ...env, documents: documentClient }, { dealFiles, accessTrail }),
    env,
  ),
);
