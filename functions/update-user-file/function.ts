import { USER_FILE_EXAMPLE, validationFailed } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { UserFileSchema } from '#shared/user-files/api/user-file.ts';
import { updateUserFileRequest } from '#shared/user-files/api/user-file-update.ts';

const updateUserFileOperation = defineOperation({
  operationId: 'updateUserFile',
  summary: 'Rename, archive or unarchive a file',
  description:
    'Sets the file’s `name` (1 to 255 characters, kept as given) and `is_archived`; an absent ' +
    'field is left as it is, an empty object changes nothing, and `updated_at` moves only ' +
    'when something changed. Archived files stay in the list. Other fields are ignored.',
  tag: 'User files',
  origin: 'extension',
  request: updateUserFileRequest,
  requestExample: { is_archived: true },
  responses: {
    200: jsonAnswer('The file as it now is', UserFileSchema, {
      ...USER_FILE_EXAMPLE,
      is_archived: true,
      updated_at: '2026-06-02T14:05:00.000Z',
    }),
    404: detailAnswer('No file of yours has this id', 'Not Found'),
    422: validationFailed({
      type: 'string_too_short',
      loc: ['body', 'name'],
      msg: 'String should have at least 1 character',
      input: '',
      ctx: { min_length: 1 },
    }),
  },
});

export const updateUserFileFunction = defineFunction({
  id: 'UpdateUserFile',
  entry: 'functions/update-user-file/handler.ts',
  routes: [
    {
      method: 'PATCH',
      path: '/api/v1/user/me/file/{file_id}',
      auth: 'jwt',
      operation: updateUserFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [{ items: ['GetItem', 'UpdateItem'], in: 'users' }],
  // The change's entries (rename, archive), in its transaction.
  trail: [{ items: ['PutItem'] }],
  settings: ['ACCESS_TRAIL_RETENTION_DAYS'],
});
