import {
  EXAMPLE_BUCKET,
  EXAMPLE_BUCKET_URL,
  storageRefused,
  validationFailed,
} from '#shared/api/examples.ts';
import { defineOperation, jsonAnswer } from '#shared/api/operation.ts';
import { defineFunction } from '#shared/functions/function-declaration.ts';
import {
  DirectUploadTicketSchema,
  startDirectUploadRequest,
} from '#shared/direct-uploads/api/direct-upload.ts';
import { STORAGE_LIMIT_SETTINGS } from '#shared/config/environment.ts';

const startDirectUploadOperation = defineOperation({
  operationId: 'startDirectUpload',
  summary: 'Sign a direct-to-S3 upload',
  description:
    'A signed S3 POST form for one file of up to 50 MiB, valid for 15 minutes. POST every ' +
    'field, then the bytes as the part named `file`, to `url`; the file becomes a UserFile ' +
    'when it lands (or when you call the complete route). S3 takes 1 byte up to the declared ' +
    '`filesize`, which is reserved against your storage quota until the upload is completed, ' +
    'cancelled, or can no longer be completed (a day after the form expires). With `sha256`, ' +
    'S3 takes only bytes with that digest, and completion checks it again.',
  tag: 'Direct uploads',
  origin: 'extension',
  request: startDirectUploadRequest,
  requestExample: { name: 'model.xlsx', type: 'financials', filesize: 31457280 },
  responses: {
    201: jsonAnswer('The form to POST the bytes with', DirectUploadTicketSchema, {
      id: 52,
      key: 'uploads/7/52',
      url: `${EXAMPLE_BUCKET_URL}/`,
      fields: {
        'Content-Type': 'application/octet-stream',
        'x-amz-meta-name': 'model.xlsx',
        'x-amz-meta-type': 'financials',
        'x-amz-meta-owner': '7',
        bucket: EXAMPLE_BUCKET,
        'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
        'X-Amz-Credential': 'ASIAEXAMPLE/20261121/eu-west-1/s3/aws4_request',
        'X-Amz-Date': '20261121T100000Z',
        // A deployed function signs with its role's session; the local stage, with keys.
        'X-Amz-Security-Token': 'IQoJb3JpZ2luX2Vj…',
        key: 'uploads/7/52',
        Policy: 'eyJleHBpcmF0aW9uIjoi…',
        'X-Amz-Signature': '5f0c…',
      },
      expires_at: '2026-11-21T10:15:00.000Z',
      max_filesize: 31457280,
    }),
    403: storageRefused('uploads'),
    422: validationFailed({
      type: 'less_than_equal',
      loc: ['body', 'filesize'],
      msg: 'Input should be less than or equal to 52428800',
      input: 52428801,
      ctx: { le: 52428800 },
    }),
  },
});

export const startDirectUploadFunction = defineFunction({
  id: 'StartDirectUpload',
  entry: 'functions/start-direct-upload/handler.ts',
  routes: [
    {
      method: 'POST',
      path: '/api/v1/user/me/file/upload',
      auth: 'jwt',
      operation: startDirectUploadOperation,
    },
  ],
  sizing: { memoryMb: 512, timeoutSeconds: 10 },
  table: [
    { items: ['UpdateItem'], in: 'fileIds' },
    {
      items: ['PutItem', 'ConditionCheckItem', 'UpdateItem', 'GetItem', 'Query', 'DeleteItem'],
      in: 'users',
      why: 'ConditionCheckItem: the owner is not erased; UpdateItem: the reservation; GetItem, Query: the usage and a first count; DeleteItem: expired reservations',
    },
  ],
  // The signed POST form carries this function's authority to put the object: under uploads/
  // only, so no form can ever write a recorded file's bytes.
  bucket: [
    {
      objects: ['s3:PutObject'],
      under: 'uploads/',
      why: "the authority its signed form carries: no form reaches a file's key",
    },
  ],
  // A start reserves against the owner's storage limits.
  settings: [...STORAGE_LIMIT_SETTINGS],
});
