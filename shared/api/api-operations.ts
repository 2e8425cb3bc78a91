import type { ApiOperation } from './operation.ts';
import { completeDirectUploadOperation } from './operations/complete-direct-upload.ts';
import { deleteDealFileOperation } from './operations/delete-deal-file.ts';
import { docsAssetOperation } from './operations/docs-asset.ts';
import { docsPageOperation } from './operations/docs-page.ts';
import { deleteUserFileOperation } from './operations/delete-user-file.ts';
import { downloadUserFileOperation } from './operations/download-user-file.ts';
import { getNotificationOperation } from './operations/get-notification.ts';
import { getRealtimeTokenOperation } from './operations/get-realtime-token.ts';
import { listDealFilesOperation } from './operations/list-deal-files.ts';
import { listUserFilesOperation } from './operations/list-user-files.ts';
import { notifySubmissionOperation } from './operations/notify-submission.ts';
import { openApiDocumentOperation } from './operations/openapi-document.ts';
import { realtimeJwksOperation } from './operations/realtime-jwks.ts';
import { startDirectUploadOperation } from './operations/start-direct-upload.ts';
import { updateDealFileOperation } from './operations/update-deal-file.ts';
import { updateUserFileOperation } from './operations/update-user-file.ts';
import { uploadUserFileOperation } from './operations/upload-user-file.ts';
import type { RouteKey } from './routes.ts';

/** Every route's operation; a route without one does not compile. */
export const API_OPERATIONS: { readonly [K in RouteKey]: ApiOperation } = {
  'GET /api/v1/user/me/file': listUserFilesOperation,
  'POST /api/v1/user/me/file': uploadUserFileOperation,
  'POST /api/v1/user/me/file/upload': startDirectUploadOperation,
  'POST /api/v1/user/me/file/upload/{file_id}/complete': completeDirectUploadOperation,
  'GET /api/v1/user/me/file/{file_id}/download': downloadUserFileOperation,
  'PATCH /api/v1/user/me/file/{file_id}': updateUserFileOperation,
  'DELETE /api/v1/user/me/file/{file_id}': deleteUserFileOperation,
  'POST /api/v1/user/me/file/notify': notifySubmissionOperation,
  'GET /api/v1/user/me/file/notify/{notification_id}': getNotificationOperation,
  'GET /api/v1/group/{group_id}/deal/{deal_id}/file': listDealFilesOperation,
  'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}': updateDealFileOperation,
  'DELETE /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}': deleteDealFileOperation,
  'POST /api/v1/auth/get-realtime-token': getRealtimeTokenOperation,
  'GET /api/v1/auth/realtime-jwks.json': realtimeJwksOperation,
  'GET /openapi.json': openApiDocumentOperation,
  'GET /docs': docsPageOperation,
  'GET /docs/{asset}': docsAssetOperation,
};
