import { completeDirectUploadRequest } from '../../schemas/direct-upload.ts';
import { UserFileSchema } from '../../schemas/user-file.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '../operation.ts';

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
    201: jsonAnswer('The file, recorded', UserFileSchema, {
      name: 'Q3 deck.pdf',
      id: 42,
      user_id: 7,
      type: 'deck',
      created_at: '2026-06-01T09:30:00.000Z',
      updated_at: null,
      is_archived: false,
      filesize: 482133,
      location: 'users/7/files/42',
    }),
    400: detailAnswer('The uploaded object is empty', 'The uploaded file is empty'),
    404: detailAnswer('No upload of yours has this id', 'Not Found'),
    409: detailAnswer('The bytes have not reached S3 yet', 'The file has not been uploaded yet'),
    413: detailAnswer(
      'The object is over 50 MiB',
      'File too large: the limit is 52428800 bytes (50 MiB)',
    ),
  },
});
