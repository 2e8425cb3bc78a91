import middy from '@middy/core';
import { toDealFileBody } from '#shared/deal-files/api/deal-file-response.ts';
import { listDealFiles } from '#shared/deal-files/list-deal-files.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { compressWhenAccepted } from '#shared/http/list-answer.ts';
import { listTooLarge } from '#shared/http/list-too-large.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { listOptionsOf, nextPageLink } from '#shared/http/list-page.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { refusalNotRecorded } from '#shared/observability/metrics.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { listDealFilesRequest } from '#shared/deal-files/api/deal-file.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { dealFileReads } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { listDealFilesFunction } from './function.ts';

/**
 * GET /api/v1/group/{group_id}/deal/{deal_id}/file (extension): the deal's files, to members,
 * newest first; one page of them with `limit` or `cursor`, the next in the `Link` header.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealFiles' | 'accessTrail'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) => {
  const ports = { ...adapters, refusalNotRecorded };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi({ answerTooLarge: listTooLarge }))
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(listDealFilesRequest, settings))
    .use(compressWhenAccepted())
    .handler<ApiEvent, ApiResult>(async (event, _context, { signal }) => {
      const { input, rawPath } = event;
      const { group_id: groupId, deal_id: dealId } = input.path;
      const options = listOptionsOf(input.query, signal);
      const listed = await listDealFiles(
        ports,
        { requester: requesterOf(event), deal: { groupId, dealId } },
        options,
      );
      const link = nextPageLink(rawPath, input.query, listed);
      return jsonResponse(200, listed.items.map(toDealFileBody), link);
    });
};

export const handler = lambdaEntry(listDealFilesFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient },
      { dealFiles: dealFileReads, accessTrail },
    ),
    env,
  ),
);
