import * as z from 'zod';
import { UserFileSchema } from '../../schemas/user-file.ts';
import { defineOperation, jsonAnswer } from '../operation.ts';
import { USER_FILE_EXAMPLE } from './examples.ts';

export const listUserFilesOperation = defineOperation({
  operationId: 'listUserFiles',
  summary: 'List your files',
  description: 'Every file the caller owns, newest first, in one unpaged array.',
  tag: 'User files',
  origin: 'contract',
  request: {},
  responses: {
    200: jsonAnswer('The caller’s files, newest first', z.array(UserFileSchema), [
      USER_FILE_EXAMPLE,
    ]),
  },
});
