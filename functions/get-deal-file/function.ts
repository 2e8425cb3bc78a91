import { DEAL_FILE_EXAMPLE, idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { DealFileSchema, getDealFileRequest } from '#shared/deal-files/api/deal-file.ts';

const getDealFileOperation = defineOperation({
  operationId: 'getDealFile',
  summary: 'Get a deal file',
  description: 'One file of the deal, for any member of its group.',
  tag: 'Deal files',
  origin: 'extension',
  request: getDealFileRequest,
  responses: {
    200: jsonAnswer('The file', DealFileSchema, DEAL_FILE_EXAMPLE),
    404: detailAnswer('You are not in the group, or the deal or file is not in it', 'Not Found'),
    422: idNotAnInteger('file_id'),
  },
});

export const getDealFileFunction = defineFunction({
  id: 'GetDealFile',
  entry: 'functions/get-deal-file/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
      auth: 'jwt',
      operation: getDealFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  // The membership, the deal and the file in one strongly consistent batch read.
  table: [{ items: ['BatchGetItem'], in: 'groups' }],
  // Refusals' entries (a member's read is not recorded).
  trail: [{ items: ['PutItem'] }],
  settings: ['ACCESS_TRAIL_RETENTION_DAYS'],
});
