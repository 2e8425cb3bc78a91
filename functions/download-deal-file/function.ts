import { idNotAnInteger } from '#shared/api/examples.ts';
import {
  FILE_DOWNLOAD_DESCRIPTION,
  fileDownloadAnswers,
} from '#shared/api/file-download-answers.ts';
import { defineOperation, detailAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { downloadDealFileRequest } from '#shared/deal-files/api/deal-file.ts';

const downloadDealFileOperation = defineOperation({
  operationId: 'downloadDealFile',
  summary: 'Download a deal file',
  description: `For any member of the deal’s group. ${FILE_DOWNLOAD_DESCRIPTION}`,
  tag: 'Deal files',
  origin: 'extension',
  request: downloadDealFileRequest,
  responses: {
    ...fileDownloadAnswers('groups/1/deals/3/files/6'),
    404: detailAnswer('You are not in the group, or the deal or file is not in it', 'Not Found'),
    422: idNotAnInteger('file_id'),
  },
});

export const downloadDealFileFunction = defineFunction({
  id: 'DownloadDealFile',
  entry: 'functions/download-deal-file/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}/download',
      auth: 'jwt',
      operation: downloadDealFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  // The membership, the deal and the file in one strongly consistent batch read.
  table: [{ items: ['BatchGetItem'], in: 'groups' }],
  // Each link's entry, before the link (fail closed), and refusals' entries.
  trail: [{ items: ['PutItem'] }],
  bucket: [{ objects: ['s3:GetObject'], under: 'groups/', why: 'the authority its link carries' }],
  // Held files get no link on a stage that scans; the bucket's policy holds them too.
  settings: ['MALWARE_SCANNING', 'ACCESS_TRAIL_RETENTION_DAYS'],
});
