import * as z from 'zod';
import { listUserFilesRequest, UserFileSchema } from '../../schemas/user-file.ts';
import { defineOperation, jsonAnswer } from '../operation.ts';
import { LIST_HEADERS, LIST_PAGING, LIST_TOO_LARGE } from './list-answers.ts';
import { USER_FILE_EXAMPLE } from './examples.ts';

export const listUserFilesOperation = defineOperation({
  operationId: 'listUserFiles',
  summary: 'List your files',
  description: `Every file the caller owns.${LIST_PAGING}`,
  tag: 'User files',
  origin: 'contract',
  request: listUserFilesRequest,
  responses: {
    200: jsonAnswer(
      'The caller’s files, newest first',
      z.array(UserFileSchema),
      [USER_FILE_EXAMPLE],
      LIST_HEADERS,
    ),
    400: LIST_TOO_LARGE,
  },
});
