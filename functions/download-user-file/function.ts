import * as z from 'zod';
import { EXAMPLE_BUCKET_URL, idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, emptyAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { fileDigestHeaderSchema } from '#shared/http/file-digest-header.ts';
import { downloadUserFileRequest } from '#shared/user-files/api/file-id-path.ts';

const downloadUserFileOperation = defineOperation({
  operationId: 'downloadUserFile',
  summary: 'Download a file',
  description:
    'A redirect to a presigned S3 link, valid for 5 minutes, that serves the bytes as an ' +
    'attachment under the file’s name; `x-checksum-sha256` names the SHA-256 the bytes must ' +
    'have.',
  tag: 'User files',
  origin: 'extension',
  request: downloadUserFileRequest,
  responses: {
    302: emptyAnswer(
      'Go to `Location` for the bytes',
      z.object({
        location: z
          .string()
          .describe('The presigned S3 GET, valid for 5 minutes')
          .meta({
            examples: [`${EXAMPLE_BUCKET_URL}/users/7/files/42?X-Amz-Algorithm=AWS4-HMAC-SHA256&…`],
          }),
        'cache-control': z.literal('no-store'),
        ...fileDigestHeaderSchema,
      }),
    ),
    403: detailAnswer(
      'Malware was found in the file: its record stays, its bytes are never handed out',
      'Malware was found in this file; it cannot be downloaded',
    ),
    404: detailAnswer('No file of yours has this id', 'Not Found'),
    409: detailAnswer(
      'The file is held by the malware scan: being scanned (with `Retry-After`), stored before scanning began, or not judged by the scanner and held for an operator',
      'The file is being scanned for malware; try again shortly',
    ),
    422: idNotAnInteger('file_id'),
  },
});

export const downloadUserFileFunction = defineFunction({
  id: 'DownloadUserFile',
  entry: 'functions/download-user-file/handler.ts',
  routes: [
    {
      method: 'GET',
      path: '/api/v1/user/me/file/{file_id}/download',
      auth: 'jwt',
      operation: downloadUserFileOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [{ items: ['GetItem'], in: 'users' }],
  bucket: [{ objects: ['s3:GetObject'], under: 'users/', why: 'the authority its link carries' }],
  // Held files get no link on a stage that scans; the bucket's policy holds them too.
  settings: ['MALWARE_SCANNING'],
});
