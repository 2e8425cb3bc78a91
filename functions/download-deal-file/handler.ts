import middy from '@middy/core';
import { downloadDealFileRequest } from '#shared/deal-files/api/deal-file.ts';
import { dealFileDownloadLink } from '#shared/deal-files/deal-file-download.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { fileDigestHeaders } from '#shared/http/file-digest-header.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { refusalNotRecorded } from '#shared/observability/metrics.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { dealFileReads } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { downloadDealFileFunction } from './function.ts';

/**
 * GET /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}/download (extension): 302 to a
 * 5-minute S3 link, for any member of the group.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'dealFiles' | 'blobs' | 'accessTrail'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | 'MALWARE_SCANNING'>,
) => {
  const ports = {
    ...adapters,
    scanning: settings.MALWARE_SCANNING === 'on',
    refusalNotRecorded,
  };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(downloadDealFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const { group_id: groupId, deal_id: dealId, file_id: fileId } = event.input.path;
      const { url, file } = await dealFileDownloadLink(ports, {
        requester: requesterOf(event),
        deal: { groupId, dealId },
        fileId,
      });
      return {
        statusCode: 302,
        headers: { location: url, 'cache-control': 'no-store', ...fileDigestHeaders(file) },
        body: '',
      };
    });
};

export const handler = lambdaEntry(downloadDealFileFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      { dealFiles: dealFileReads, blobs, accessTrail },
    ),
    env,
  ),
);
