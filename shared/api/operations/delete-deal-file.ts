import { deleteDealFileRequest } from '../../schemas/deal-file.ts';
import { defineOperation, detailAnswer, emptyAnswer } from '../operation.ts';

export const deleteDealFileOperation = defineOperation({
  operationId: 'deleteDealFile',
  summary: 'Delete a deal file',
  description: 'Removes the file’s record and its bytes. Editors of the group only.',
  tag: 'Deal files',
  origin: 'extension',
  request: deleteDealFileRequest,
  responses: {
    204: emptyAnswer('Deleted'),
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
