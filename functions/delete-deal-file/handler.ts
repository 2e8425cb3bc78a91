import middy from '@middy/core';
import { deleteDealFile } from '#shared/deal-files/delete-deal-file.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { deleteDealFileRequest } from '#shared/schemas/deal-file.ts';
import * as deployed from '#shared/wiring/deployed-adapters.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters, ServiceSettings } from '#shared/wiring/service-adapters.ts';
import { deleteDealFileFunction } from './function.ts';

/** DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id} (extension): editors; 204. */
export const createHandler = (
  { dealFiles, blobs }: Pick<ServiceAdapters, 'dealFiles' | 'blobs'>,
  settings: Pick<ServiceSettings, 'USER_ID_CLAIM'>,
) => {
  const ports = { files: dealFiles, blobs };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(deleteDealFileRequest))
    .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
      const { group_id: groupId, deal_id: dealId, file_id: fileId } = input.path;
      await deleteDealFile(ports, { userId, deal: { groupId, dealId }, fileId });
      return { statusCode: 204, body: '' };
    });
};

export const handler = lambdaEntry(deleteDealFileFunction.variables, (env) =>
  createHandler({ dealFiles: deployed.dealFiles(env), blobs: deployed.blobs(env) }, env),
);
