import { DealFileSchema, updateDealFileRequest } from '../../schemas/deal-file.ts';
import { defineOperation, jsonAnswer } from '../operation.ts';
import { DEAL_FILE_CHANGE_REFUSALS } from './deal-file-change-refusals.ts';
import { DEAL_FILE_EXAMPLE } from './examples.ts';

export const updateDealFileOperation = defineOperation({
  operationId: 'updateDealFile',
  summary: 'Update a deal file',
  description:
    'Sets the file’s `type` (`null` clears it; an empty object changes nothing). Editors of ' +
    'the group only.',
  tag: 'Deal files',
  origin: 'contract',
  request: updateDealFileRequest,
  requestExample: { type: 'financials' },
  responses: {
    200: jsonAnswer('The file as it now is', DealFileSchema, DEAL_FILE_EXAMPLE),
    ...DEAL_FILE_CHANGE_REFUSALS,
  },
});
