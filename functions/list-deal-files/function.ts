import * as z from 'zod';
import { FILES_BY_CREATION_INDEX } from '#shared/storage/keys.ts';
import { DEAL_FILE_EXAMPLE, idNotAnInteger } from '#shared/api/examples.ts';
import { listHeaders, LIST_PAGING, LIST_TOO_LARGE } from '#shared/api/list-answers.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { DealFileSchema, listDealFilesRequest } from '#shared/deal-files/api/deal-file.ts';

const listDealFilesOperation = defineOperation({
  operationId: 'listDealFiles',
  summary: 'List a deal’s files',
  description: `Every file of the deal, for any member of its group.${LIST_PAGING}`,
  tag: 'Deal files',
  origin: 'extension',
  request: listDealFilesRequest,
  responses: {
    200: jsonAnswer(
      'The deal’s files, newest first',
      z.array(DealFileSchema),
      [DEAL_FILE_EXAMPLE],
      listHeaders('/api/v1/group/1/deal/4/file'),
    ),
    400: LIST_TOO_LARGE,
    404: detailAnswer('You are not in the group, or the deal is not in it', 'Not Found'),
    422: idNotAnInteger('group_id'),
  },
});

export const listDealFilesFunction = defineFunction({
  id: 'ListDealFiles',
  entry: 'functions/list-deal-files/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/group/{group_id}/deal/{deal_id}/file',
      auth: 'jwt',
      operation: listDealFilesOperation,
    },
  ],
  // A listing may build an answer of several MB: more memory, and with it more CPU.
  sizing: { memoryMb: 1024, timeoutSeconds: 20 },
  // The membership and the deal in one batch read, then the deal's files from the index.
  table: [
    { items: ['BatchGetItem'], in: 'groups' },
    { items: ['Query'], in: 'groups', index: FILES_BY_CREATION_INDEX },
  ],
  // Refusals' entries (a member's listing is not recorded).
  trail: [{ items: ['PutItem'] }],
  settings: ['ACCESS_TRAIL_RETENTION_DAYS'],
});
