import middy from '@middy/core';
import { completeDirectUpload } from '#shared/direct-uploads/complete-direct-upload.ts';
import { completionPorts } from '#shared/direct-uploads/completion-ports.ts';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { completeDirectUploadRequest } from '#shared/schemas/direct-upload.ts';
import { toUserFileBody } from '#shared/user-files/user-file-response.ts';

const ports = completionPorts();

/**
 * POST /api/v1/user/me/file/upload/{file_id}/complete (extension): the UserFile a direct
 * upload became, creating it if the S3 event has not yet. Every call answers the same.
 */
export const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(authenticate())
  .use(validateRequest(completeDirectUploadRequest))
  .handler<ApiEvent, ApiResult>(async ({ userId, input }) => {
    const file = await completeDirectUpload(ports, userId, input.path.file_id);
    return jsonResponse(201, toUserFileBody(file));
  });
