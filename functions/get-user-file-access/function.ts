import * as z from 'zod';
import { idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { MAX_PAGE_SIZE } from '#shared/http/list-page.ts';
import {
  FILE_ACCESS_EXAMPLE,
  FileAccessSchema,
  getUserFileAccessRequest,
} from '#shared/access-reports/api/own-file-access.ts';

const getUserFileAccessOperation = defineOperation({
  operationId: 'getUserFileAccess',
  summary: 'How often your file was opened, and where',
  description:
    'What the owner of a file may know of its accesses: their own entries about it (its ' +
    'downloads, renames, archiving), newest first, and for each deal room that holds a copy ' +
    'of it, how many download links its members were given, how many members, and the first ' +
    'and last: counts, never who. A copy deleted from its room is left out. `entries` is a ' +
    `page (at most \`limit\`, 1 to ${String(MAX_PAGE_SIZE)}, default ` +
    `${String(MAX_PAGE_SIZE)}), with a \`Link: <…>; rel="next"\` header while more of them ` +
    'may follow; every page holds every room. The answer is gzipped when the request ' +
    'accepts it.',
  tag: 'User files',
  origin: 'extension',
  request: getUserFileAccessRequest,
  responses: {
    200: jsonAnswer(
      'Your entries about the file, and its deal rooms, counted',
      FileAccessSchema,
      FILE_ACCESS_EXAMPLE,
      z.object({
        link: z
          .string()
          .optional()
          .describe('While more of your entries may follow: the next page (RFC 8288)'),
        'content-encoding': z
          .literal('gzip')
          .optional()
          .describe('When the request accepts gzip (`Accept-Encoding: gzip`)'),
      }),
    ),
    404: detailAnswer('No file of yours has this id', 'Not Found'),
    422: idNotAnInteger('file_id'),
  },
});

export const getUserFileAccessFunction = defineFunction({
  id: 'GetUserFileAccess',
  entry: 'functions/get-user-file-access/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/file/{file_id}/access',
      auth: 'jwt',
      operation: getUserFileAccessOperation,
    },
  ],
  // A page of entries, and each copy's downloads read and counted.
  sizing: { memoryMb: 1024, timeoutSeconds: 20 },
  table: [{ items: ['GetItem'], in: 'users', why: 'the file, which must be the caller’s' }],
  trail: [
    {
      items: ['Query'],
      index: 'ByFile',
      why: 'the owner’s entries, the copies made of the file and their downloads',
    },
  ],
});
