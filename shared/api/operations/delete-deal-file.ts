import { deleteDealFileRequest } from '../../schemas/deal-file.ts';
import { defineOperation, emptyAnswer } from '../operation.ts';
import { DEAL_FILE_CHANGE_REFUSALS } from './deal-file-change-refusals.ts';

export const deleteDealFileOperation = defineOperation({
  operationId: 'deleteDealFile',
  summary: 'Delete a deal file',
  description: 'Removes the file’s record and its bytes. Editors of the group only.',
  tag: 'Deal files',
  origin: 'extension',
  request: deleteDealFileRequest,
  responses: {
    204: emptyAnswer('Deleted'),
    ...DEAL_FILE_CHANGE_REFUSALS,
  },
});
