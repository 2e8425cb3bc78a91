import { DEAL_FILE_CHANGE_REFUSALS } from '#shared/api/deal-file-change-refusals.ts';
import { idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, emptyAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { deleteDealFileRequest } from '#shared/deal-files/api/deal-file.ts';

const deleteDealFileOperation = defineOperation({
  operationId: 'deleteDealFile',
  summary: 'Delete a deal file',
  description: 'Removes the file’s record and its bytes. Editors of the group only.',
  tag: 'Deal files',
  origin: 'extension',
  request: deleteDealFileRequest,
  responses: {
    204: emptyAnswer('Deleted'),
    ...DEAL_FILE_CHANGE_REFUSALS,
    422: idNotAnInteger('file_id'),
  },
});

export const deleteDealFileFunction = defineFunction({
  id: 'DeleteDealFile',
  entry: 'functions/delete-deal-file/handler.ts',
  routes: [
    {
      method: 'DELETE',
      path: '/api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
      auth: 'jwt',
      operation: deleteDealFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [
    {
      items: ['BatchGetItem', 'ConditionCheckItem', 'DeleteItem', 'PutItem'],
      in: 'groups',
      why: 'PutItem, the deal checked: the record back, if the object will not go',
    },
  ],
  // The delete's entry, in its transaction; refusals' entries.
  trail: [{ items: ['PutItem'] }],
  bucket: [{ objects: ['s3:DeleteObject'], under: 'groups/' }],
  settings: ['ACCESS_TRAIL_RETENTION_DAYS'],
});
