import { storageRefused, USER_FILE_EXAMPLE, validationFailed } from '#shared/api/examples.ts';
import { defineOperation, detailAnswer, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction, idempotencyRecords } from '#shared/functions/function-declaration.ts';
import { GatewayMessageSchema } from '#shared/http/error-bodies.ts';
import { uploadUserFileRequest } from '#shared/user-files/api/user-file-upload.ts';
import { UserFileSchema } from '#shared/user-files/api/user-file.ts';
import { STORAGE_LIMIT_SETTINGS } from '#shared/config/environment.ts';

const uploadUserFileOperation = defineOperation({
  operationId: 'uploadUserFile',
  summary: 'Upload a file',
  description:
    'A multipart form with `file`, `name` and `type`. Stores the bytes and records the file. ' +
    'Multipart uploads take files up to 4.7 MB (4,700,000 bytes) on every stage; larger files ' +
    'take the direct upload (the platform refuses a larger request with its 413 before any ' +
    'code runs; the local stage answers as it does). With an `Idempotency-Key`, a retry ' +
    'within 24 hours gets the first 201 again and stores nothing twice. The file counts ' +
    'against your storage quota; its SHA-256 is recorded, and S3 checks the stored bytes ' +
    'against it (`GET …/file/{file_id}` names it in `x-checksum-sha256`).',
  tag: 'User files',
  origin: 'contract',
  request: uploadUserFileRequest,
  responses: {
    201: jsonAnswer('Stored and recorded', UserFileSchema, USER_FILE_EXAMPLE),
    400: detailAnswer(
      'The form could not be read (Starlette’s words): broken framing, a part without a name, ' +
        'too many parts, a field over 16 KiB',
      'Invalid multipart data.',
    ),
    403: storageRefused('files'),
    409: detailAnswer(
      'A request with this Idempotency-Key is still running',
      'A request with this Idempotency-Key is still being processed; retry shortly',
    ),
    // The platform refuses a body over Lambda's 6 MB before the function sees it, so the
    // function's own 50 MiB refusal cannot come on this route.
    413: jsonAnswer(
      'The body is over what Lambda takes (a file over 4.7 MB (4,700,000 bytes) may not fit): send it by direct upload',
      GatewayMessageSchema,
      { message: 'Request Entity Too Large' },
    ),
    422: validationFailed({
      type: 'missing',
      loc: ['body', 'file'],
      msg: 'Field required',
      input: null,
    }),
  },
});

export const uploadUserFileFunction = defineFunction({
  id: 'UploadUserFile',
  entry: 'functions/upload-user-file/handler.ts',
  routes: [
    {
      method: 'POST',
      path: '/api/v1/user/me/file',
      auth: 'jwt',
      operation: uploadUserFileOperation,
    },
  ],
  // It holds and parses a body of up to 6 MB: more memory, and with it more CPU.
  sizing: { memoryMb: 1024, timeoutSeconds: 29 },
  // An id block, the object, the record with its usage (and the object's removal if the
  // record fails).
  table: [
    { items: ['UpdateItem'], in: 'fileIds' },
    {
      items: ['PutItem', 'ConditionCheckItem', 'GetItem', 'UpdateItem', 'Query', 'DeleteItem'],
      in: 'users',
      why: 'ConditionCheckItem: the owner is not erased; GetItem: the usage, and a record whose answer was lost; UpdateItem: the usage; Query: a first count, and expired reservations, which DeleteItem ends',
    },
    idempotencyRecords('uploadUserFile'),
  ],
  bucket: [
    { objects: ['s3:PutObject', 's3:DeleteObject'], under: 'users/' },
    // An erased user's refused upload: its bytes go with every version.
    { listVersionsUnder: ['users/'] },
    {
      objects: ['s3:DeleteObjectVersion'],
      under: 'users/',
      why: 'a refused upload (an erased user, over the quota)',
    },
  ],
  // A new file waits for its malware-scan verdict only on a stage that scans; it is held to
  // the owner's storage limits.
  settings: ['MALWARE_SCANNING', ...STORAGE_LIMIT_SETTINGS],
});
