import * as z from 'zod';
import { FILES_BY_CREATION_INDEX } from '#shared/storage/keys.ts';
import { USER_FILE_EXAMPLE, validationFailed } from '#shared/api/examples.ts';
import { listHeaders, LIST_PAGING, LIST_TOO_LARGE } from '#shared/api/list-answers.ts';
import { defineOperation, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { listUserFilesRequest, UserFileSchema } from '#shared/user-files/api/user-file.ts';

const listUserFilesOperation = defineOperation({
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
      listHeaders('/api/v1/user/me/file'),
    ),
    400: LIST_TOO_LARGE,
    422: validationFailed({
      type: 'greater_than',
      loc: ['query', 'limit'],
      msg: 'Input should be greater than 0',
      input: '0',
      ctx: { gt: 0 },
    }),
  },
});

export const listUserFilesFunction = defineFunction({
  id: 'ListUserFiles',
  entry: 'functions/list-user-files/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/file',
      auth: 'jwt',
      operation: listUserFilesOperation,
    },
  ],
  // A listing may build an answer of several MB: more memory, and with it more CPU.
  sizing: { memoryMb: 1024, timeoutSeconds: 20 },
  table: [{ items: ['Query'], in: 'users', index: FILES_BY_CREATION_INDEX }],
});
