import * as z from 'zod';
import { USER_FILE_EXAMPLE, idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { fileDigestHeaderSchema } from '#shared/http/file-digest-header.ts';
import { getUserFileRequest, UserFileSchema } from '#shared/user-files/api/user-file.ts';

const getUserFileOperation = defineOperation({
  operationId: 'getUserFile',
  summary: 'Get one of your files',
  description:
    'The file with this id, as the list shows it, if it is yours; `x-checksum-sha256` names ' +
    'the SHA-256 of its bytes.',
  tag: 'User files',
  origin: 'extension',
  request: getUserFileRequest,
  responses: {
    200: jsonAnswer(
      'The file',
      UserFileSchema,
      USER_FILE_EXAMPLE,
      z.object({ ...fileDigestHeaderSchema }),
    ),
    404: detailAnswer('No file of yours has this id', 'Not Found'),
    422: idNotAnInteger('file_id'),
  },
});

export const getUserFileFunction = defineFunction({
  id: 'GetUserFile',
  entry: 'functions/get-user-file/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/file/{file_id}',
      auth: 'jwt',
      operation: getUserFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [{ items: ['GetItem'], in: 'users' }],
});
