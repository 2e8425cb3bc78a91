import * as z from 'zod';
import { MAX_UPLOAD_BYTES } from '../../user-files/upload-limits.ts';
import { FileTypeSchema } from '../../http/file-type-schema.ts';
import { pyBoundedInt } from '../../http/fastapi/pydantic-fields.ts';
import { FileIdPathSchema } from '../../user-files/api/file-id-path.ts';
import { FileNameSchema } from '../../user-files/api/user-file-upload.ts';

const MEDIA_TYPE_PATTERN = '^[\\w!#$&^.+-]{1,127}/[\\w!#$&^.+-]{1,127}$';

/**
 * A SHA-256 as S3 writes one (`x-amz-checksum-sha256`): the 32 bytes in base64, 44
 * characters, the last before `=` holding 2 of their bits.
 */
const SHA256_BASE64_PATTERN = '^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$';

/** POST /api/v1/user/me/file/upload: what the client means to upload. */
const DirectUploadRequestSchema = z
  .object({
    name: FileNameSchema,
    type: FileTypeSchema,
    filesize: pyBoundedInt({ gt: 0, le: MAX_UPLOAD_BYTES }).describe(
      'Size in bytes the client will upload: S3 takes 1 byte up to it, and it is reserved against your storage quota until the upload ends',
    ),
    content_type: z
      .string()
      .regex(new RegExp(MEDIA_TYPE_PATTERN))
      // The pattern bounds the length (127 + 1 + 127); said for the document and the body limit.
      .meta({ maxLength: 255 })
      .nullable()
      .optional()
      .describe('Media type stored with the object; application/octet-stream when absent'),
    sha256: z
      .string()
      .regex(new RegExp(SHA256_BASE64_PATTERN))
      // The pattern fixes the length; said for the document and the body limit.
      .meta({ maxLength: 44 })
      .nullable()
      .optional()
      .describe(
        'The SHA-256 of the bytes, base64 of the 32 bytes (as `openssl dgst -sha256 -binary | base64` prints it): S3 and the completion refuse other bytes',
      ),
  })
  .meta({ id: 'DirectUploadRequest' });

/** 201 from POST /api/v1/user/me/file/upload: a signed S3 POST form for the bytes. */
export const DirectUploadTicketSchema = z
  .object({
    id: z.int().describe('The id of the UserFile this upload becomes'),
    key: z
      .string()
      .describe(
        'The object key the form writes to: the upload’s own, never the file’s (completion copies the bytes there)',
      ),
    url: z.string().describe('POST the form here'),
    fields: z
      .record(z.string(), z.string())
      .describe('Send every field, in order, then the bytes as the part named `file`'),
    expires_at: z.string().describe('When the form stops working (ISO 8601, UTC)'),
    max_filesize: z
      .int()
      .describe('Largest file S3 accepts with this form, in bytes: the declared `filesize`'),
  })
  .meta({ id: 'DirectUploadTicket' });

/** What POST /api/v1/user/me/file/upload validates (see `ApiOperation.request`). */
export const startDirectUploadRequest = { body: DirectUploadRequestSchema };

/** What POST …/upload/{file_id}/complete validates (see `ApiOperation.request`). */
export const completeDirectUploadRequest = { path: FileIdPathSchema };
