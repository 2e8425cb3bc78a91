import middy from '@middy/core';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { fileDigestHeaders } from '#shared/http/file-digest-header.ts';
import { httpApi } from '#shared/http/http-api.ts';
import type { ApiResult } from '#shared/http/responses.ts';
import { requesterOf } from '#shared/http/requester.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { accessTrail } from '#shared/access-trail/adapters/dynamo-access-trail.ts';
import { downloadUserFileRequest } from '#shared/user-files/api/file-id-path.ts';
import { userFileDownloadLink } from '#shared/user-files/user-file-download.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { downloadUserFileFunction } from './function.ts';

/** GET /api/v1/user/me/file/{file_id}/download (extension): 302 to a 5-minute S3 link. */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'userFiles' | 'blobs' | 'accessTrail'>,
  settings: Pick<HandlerSettings, 'USER_ID_CLAIM' | 'MALWARE_SCANNING'>,
) => {
  const ports = { ...adapters, scanning: settings.MALWARE_SCANNING === 'on' };
  return middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(settings.USER_ID_CLAIM))
    .use(validateRequest(downloadUserFileRequest, settings))
    .handler<ApiEvent, ApiResult>(async (event) => {
      const { url, file } = await userFileDownloadLink(
        ports,
        requesterOf(event),
        event.input.path.file_id,
      );
      return {
        statusCode: 302,
        headers: { location: url, 'cache-control': 'no-store', ...fileDigestHeaders(file) },
        body: '',
      };
    });
};

export const handler = lambdaEntry(downloadUserFileFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      {
        userFiles,
        blobs,
        accessTrail,
      },
    ),
    env,
  ),
);
