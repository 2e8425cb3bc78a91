import middy from '@middy/core';
import { readDealFile } from '#shared/deal-files/find-deal-file.ts';
import { toDealFileBody } from '#shared/deal-files/api/deal-file-response.ts';
import { getDealFileRequest } from '#shared/deal-files/api/deal-file.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { refusalNotRecorded } from '#shared/observability/metrics.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { dealFileReads } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { getDealFileFunction } from './function.ts';

/** GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} (extension): one deal file. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealFiles' | 'accessTrail'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) => {
  const ports = { ...adapters, refusalNotRecorded };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(getDealFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const { group_id: groupId, deal_id: dealId, file_id: fileId } = event.input.path;
      const file = await readDealFile(ports, {
        requester: requesterOf(event),
        deal: { groupId, dealId },
        fileId,
      });
      return jsonResponse(200, toDealFileBody(file));
    });
};

export const handler = lambdaEntry(getDealFileFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient },
      { dealFiles: dealFileReads, accessTrail },
    ),
    env,
  ),
);
