import * as z from 'zod';
import { UserFileSchema } from '../../schemas/user-file.ts';
import { defineOperation, jsonAnswer } from '../operation.ts';

export const listUserFilesOperation = defineOperation({
  operationId: 'listUserFiles',
  summary: 'List your files',
  description: 'Every file the caller owns, newest first, in one unpaged array.',
  tag: 'User files',
  origin: 'contract',
  request: {},
  responses: {
    200: jsonAnswer('The caller’s files, newest first', z.array(UserFileSchema), [
      {
        name: 'Q3 deck.pdf',
        id: 42,
        user_id: 7,
        type: 'deck',
        created_at: '2026-06-01T09:30:00.000Z',
        updated_at: null,
        is_archived: false,
        filesize: 482133,
        location: 'users/7/files/42',
      },
    ]),
  },
});
