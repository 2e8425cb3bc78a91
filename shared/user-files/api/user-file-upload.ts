import * as z from 'zod';
import { FilePart } from '../../http/fastapi/file-part.ts';
import { MAX_FILE_NAME_LENGTH } from '../upload-limits.ts';
import { FileTypeSchema } from '../../http/file-type-schema.ts';
import { pyStr } from '../../http/fastapi/pydantic-fields.ts';
import { IdempotencyHeaders } from '../../http/idempotency-headers.ts';

/**
 * FastAPI's `UploadFile = File(...)`: a part with a filename. A plain field in its place is
 * Pydantic's value error; an empty file is refused, as S3's signed uploads refuse one.
 */
const UploadFileSchema = z
  .custom<FilePart>((value) => value instanceof FilePart, {
    params: {
      pydantic: {
        type: 'value_error',
        msg: "Value error, Expected UploadFile, received: <class 'str'>",
        ctx: { error: {} },
      },
    },
  })
  .check(
    z.refine((file) => !(file instanceof FilePart) || file.size > 0, {
      params: {
        pydantic: {
          type: 'bytes_too_short',
          msg: 'Data should have at least 1 byte',
          ctx: { min_length: 1 },
        },
      },
    }),
  )
  .meta({ type: 'string', format: 'binary' });

export const FileNameSchema = pyStr({ minLength: 1, maxLength: MAX_FILE_NAME_LENGTH }).describe(
  'Name of the file, including its extension; kept exactly as given',
);

/** POST /api/v1/user/me/file: the contract's multipart form. */
const UserFileUploadForm = z.object({
  file: UploadFileSchema,
  name: FileNameSchema,
  type: FileTypeSchema.describe('Category of the file'),
});

/** What POST /api/v1/user/me/file validates (see `ApiOperation.request`). */
export const uploadUserFileRequest = { header: IdempotencyHeaders, form: UserFileUploadForm };
