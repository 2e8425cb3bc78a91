import { deleteUserFileRequest } from '../../schemas/user-file-update.ts';
import { defineOperation, detailAnswer, emptyAnswer } from '../operation.ts';

export const deleteUserFileOperation = defineOperation({
  operationId: 'deleteUserFile',
  summary: 'Delete a file for good',
  description:
    'Removes the file’s record and every stored version of its bytes: the delete is ' +
    'permanent, nothing can bring the file back. For the id of a direct upload not yet ' +
    'completed, cancels the upload, so it can no longer complete. When the bytes cannot be ' +
    'removed the file stays as it was and the answer is an error: send the delete again.',
  tag: 'User files',
  origin: 'extension',
  request: deleteUserFileRequest,
  responses: {
    204: emptyAnswer('Deleted (or the upload cancelled)'),
    404: detailAnswer('No file or waiting upload of yours has this id', 'Not Found'),
    409: detailAnswer(
      'The direct upload of this id is being completed right now',
      'The upload is being completed; try again',
    ),
  },
});
