import * as z from 'zod';
import { FilePart } from '../../http/fastapi/file-part.ts';
import { MAX_FILE_NAME_LENGTH } from '../upload-limits.ts';
import { FileTypeSchema } from '../../http/file-type-schema.ts';
import { pyStr } from '../../http/fastapi/pydantic-fields.ts';
import { plural } from '../../http/fastapi/pydantic-errors.ts';
import { IdempotencyHeaders } from '../../http/idempotency-headers.ts';
import { settingBoundField } from '../../http/setting-bound-fields.ts';

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

/**
 * A file's name: 1 to 255 characters, as Pydantic counts them, and at most the stage's
 * MAX_FILE_NAME_BYTES in UTF-8. Pydantic has no bound on a `str`'s bytes: a FastAPI app writes
 * a validator (`AfterValidator`) that raises `ValueError`, which runs once the characters
 * pass, and FastAPI answers `value_error` with the message, `ctx: {"error": {}}` (checked on
 * FastAPI 0.142.2). `string_too_long` would say `max_length` characters, and a client that
 * cut the name to that many could still be refused. JSON Schema has no word for bytes: the
 * document says it with `x-max-bytes` and in the description.
 */
export const FileNameSchema = settingBoundField(
  ['MAX_FILE_NAME_BYTES'],
  ({ MAX_FILE_NAME_BYTES: maxBytes }) =>
    pyStr({ minLength: 1, maxLength: MAX_FILE_NAME_LENGTH })
      .check(
        z.refine((name) => Buffer.byteLength(name, 'utf8') <= maxBytes, {
          when: (payload) => payload.issues.length === 0,
          params: {
            pydantic: {
              type: 'value_error',
              msg: `Value error, String should have at most ${plural(maxBytes, 'byte')} in UTF-8`,
              ctx: { error: {} },
            },
          },
        }),
      )
      .meta({ 'x-max-bytes': maxBytes })
      .describe(
        `Name of the file, including its extension; kept exactly as given; at most ${plural(maxBytes, 'byte')} in UTF-8`,
      ),
);

/** POST /api/v1/user/me/file: the contract's multipart form. */
const UserFileUploadForm = z.object({
  file: UploadFileSchema,
  name: FileNameSchema,
  type: FileTypeSchema.describe('Category of the file'),
});

/** What POST /api/v1/user/me/file validates (see `ApiOperation.request`). */
export const uploadUserFileRequest = { header: IdempotencyHeaders, form: UserFileUploadForm };
