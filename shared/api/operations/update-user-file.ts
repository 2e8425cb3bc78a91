import { UserFileSchema } from '../../schemas/user-file.ts';
import { updateUserFileRequest } from '../../schemas/user-file-update.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';
import { USER_FILE_EXAMPLE } from './examples.ts';

export const updateUserFileOperation = defineOperation({
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
  },
});
