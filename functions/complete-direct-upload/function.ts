import { USER_FILE_EXAMPLE, idNotAnInteger } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import { completeDirectUploadRequest } from '#shared/direct-uploads/api/direct-upload.ts';
import { UserFileSchema } from '#shared/user-files/api/user-file.ts';
import { DIRECT_UPLOAD_COMPLETION } from '#shared/functions/direct-upload-completion.ts';

const completeDirectUploadOperation = defineOperation({
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
    400: detailAnswer(
      'The uploaded object is empty, or its SHA-256 is not the `sha256` the start declared (the bytes are deleted, the reservation given back)',
      'The uploaded file is empty',
    ),
    404: detailAnswer('No upload of yours has this id', 'Not Found'),
    409: detailAnswer(
      'The bytes have not reached S3 yet or changed while it ran, or another completion (or a cancel) holds the upload: retry',
      'The file has not been uploaded yet',
    ),
    413: detailAnswer(
      'The object is over 50 MiB, or over the `filesize` the start declared',
      'File too large: the limit is 52428800 bytes (50 MiB)',
    ),
    422: idNotAnInteger('file_id'),
  },
});

export const completeDirectUploadFunction = defineFunction({
  id: 'CompleteDirectUpload',
  entry: 'functions/complete-direct-upload/handler.ts',
  routes: [
    {
      method: 'POST',
      path: '/api/v1/user/me/file/upload/{file_id}/complete',
      auth: 'jwt',
      operation: completeDirectUploadOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  ...DIRECT_UPLOAD_COMPLETION,
});
