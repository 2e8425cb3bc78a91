import middy from '@middy/core';
import { deleteDealFile } from '#shared/deal-files/delete-deal-file.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { refusalNotRecorded } from '#shared/observability/metrics.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { deleteDealFileRequest } from '#shared/deal-files/api/deal-file.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { dealFiles } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { deleteDealFileFunction } from './function.ts';

/** DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} (extension): editors; 204. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealFiles' | 'blobs' | 'accessTrail'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM'>,
) => {
  const ports = { ...adapters, refusalNotRecorded };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(deleteDealFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const { input } = event;
      const { group_id: groupId, deal_id: dealId, file_id: fileId } = input.path;
      const requester = requesterOf(event);
      await deleteDealFile(ports, { requester, deal: { groupId, dealId }, fileId });
      return { statusCode: 204, body: '' };
    });
};

export const handler = lambdaEntry(deleteDealFileFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      { dealFiles, blobs, accessTrail },
    ),
    env,
  ),
);
