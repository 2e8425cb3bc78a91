import { idNotAnInteger } from '#shared/api/examples.ts';
import {
  FILE_DOWNLOAD_DESCRIPTION,
  fileDownloadAnswers,
} from '#shared/api/file-download-answers.ts';
import { defineOperation, detailAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { downloadUserFileRequest } from '#shared/user-files/api/file-id-path.ts';

const downloadUserFileOperation = defineOperation({
  operationId: 'downloadUserFile',
  summary: 'Download a file',
  description: FILE_DOWNLOAD_DESCRIPTION,
  tag: 'User files',
  origin: 'extension',
  request: downloadUserFileRequest,
  responses: {
    ...fileDownloadAnswers('users/7/files/42'),
    404: detailAnswer('No file of yours has this id', 'Not Found'),
    422: idNotAnInteger('file_id'),
  },
});

export const downloadUserFileFunction = defineFunction({
  id: 'DownloadUserFile',
  entry: 'functions/download-user-file/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/file/{file_id}/download',
      auth: 'jwt',
      operation: downloadUserFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [{ items: ['GetItem'], in: 'users' }],
  // Each link's entry, before the link (fail closed).
  trail: [{ items: ['PutItem'] }],
  bucket: [{ objects: ['s3:GetObject'], under: 'users/', why: 'the authority its link carries' }],
  // Held files get no link on a stage that scans; the bucket's policy holds them too.
  settings: ['MALWARE_SCANNING', 'ACCESS_TRAIL_RETENTION_DAYS'],
});
