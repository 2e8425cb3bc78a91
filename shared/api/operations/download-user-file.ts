import * as z from 'zod';
import { downloadUserFileRequest } from '../../schemas/direct-upload.ts';
import { defineOperation, detailAnswer, emptyAnswer } from '../operation.ts';

export const downloadUserFileOperation = defineOperation({
  operationId: 'downloadUserFile',
  summary: 'Download a file',
  description:
    'A redirect to a presigned S3 link, valid for 5 minutes, that serves the bytes as an ' +
    'attachment under the file’s name.',
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
            examples: [
              'https://file-service-bucket.s3.eu-west-1.amazonaws.com/users/7/files/42?X-Amz-Algorithm=AWS4-HMAC-SHA256&…',
            ],
          }),
        'cache-control': z.literal('no-store'),
      }),
    ),
    404: detailAnswer('No file of yours has this id', 'Not Found'),
  },
});
