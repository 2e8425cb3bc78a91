import { idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, emptyAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { deleteUserFileRequest } from '#shared/user-files/api/user-file-update.ts';
import { STORAGE_LIMIT_SETTINGS } from '#shared/config/environment.ts';

const deleteUserFileOperation = defineOperation({
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
      'The direct upload of this id is being completed right now; nothing was deleted, and sent again it deletes the file',
      'The upload is being completed; try again',
    ),
    422: idNotAnInteger('file_id'),
  },
});

export const deleteUserFileFunction = defineFunction({
  id: 'DeleteUserFile',
  entry: 'functions/delete-user-file/handler.ts',
  routes: [
    {
      method: 'DELETE',
      path: '/api/v1/user/me/file/{file_id}',
      auth: 'jwt',
      operation: deleteUserFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [
    {
      items: ['GetItem', 'DeleteItem', 'PutItem', 'ConditionCheckItem', 'UpdateItem', 'Query'],
      in: 'users',
      why: 'PutItem and ConditionCheckItem: the record back, if its bytes will not go and the owner is not erased; UpdateItem: the usage, in the same transaction; Query: a first count of it',
    },
  ],
  // Every version of the file's bytes (or a cancelled upload's) goes for good: listed, then
  // deleted by version id.
  bucket: [
    { listVersionsUnder: ['users/', 'uploads/'] },
    {
      objects: ['s3:DeleteObjectVersion'],
      under: 'users/',
      why: 'every version goes: a delete is permanent',
    },
    { objects: ['s3:DeleteObjectVersion'], under: 'uploads/', why: 'for an upload it cancels' },
  ],
  // The delete's entry, in its transaction.
  trail: [{ items: ['PutItem'] }],
  // A record put back (its bytes would not go) is held to the owner's limits, as a new one.
  settings: [...STORAGE_LIMIT_SETTINGS, 'ACCESS_TRAIL_RETENTION_DAYS'],
});
