import { completeDirectUploadRequest } from '../../schemas/direct-upload.ts';
import { UserFileSchema } from '../../schemas/user-file.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';
import { USER_FILE_EXAMPLE } from './examples.ts';

export const completeDirectUploadOperation = defineOperation({
  operationId: 'completeDirectUpload',
  summary: 'Finish a direct upload',
  description:
    'The UserFile a direct upload became. Safe to call more than once, and before or after ' +
    'the bucket’s own event finishes it.',
  tag: 'Direct uploads',
  origin: 'extension',
  request: completeDirectUploadRequest,
  responses: {
    201: jsonAnswer('The file, recorded', UserFileSchema, USER_FILE_EXAMPLE),
    400: detailAnswer('The uploaded object is empty', 'The uploaded file is empty'),
    404: detailAnswer('No upload of yours has this id', 'Not Found'),
    409: detailAnswer(
      'The bytes have not reached S3 yet, or another completion holds the upload (retry)',
      'The file has not been uploaded yet',
    ),
    413: detailAnswer(
      'The object is over 50 MiB',
      'File too large: the limit is 52428800 bytes (50 MiB)',
    ),
  },
});
