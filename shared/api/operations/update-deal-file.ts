import { DealFileSchema, updateDealFileRequest } from '../../schemas/deal-file.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';
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
    403: detailAnswer(
      'You are a viewer of the group',
      'Only editors of this group may change its deal files',
    ),
    404: detailAnswer('You are not in the group, or the deal or file is not in it', 'Not Found'),
    409: detailAnswer(
      'The file kept changing under concurrent edits',
      'The file kept changing while this request ran; try again',
    ),
  },
});
