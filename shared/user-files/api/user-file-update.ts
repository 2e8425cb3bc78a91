import * as z from 'zod';
import { FileIdPathSchema } from './file-id-path.ts';
import { pyBool } from '../../http/fastapi/pydantic-fields.ts';
import { FileNameSchema } from './user-file-upload.ts';

/**
 * PATCH body (extension): an absent field is left as it is; null is neither a boolean nor a
 * name, so it is refused. Fields it does not name (`id`, `user_id`, `filesize`, `location` …)
 * are dropped, as Pydantic ignores them, and never reach the record.
 */
const UserFileUpdateSchema = z
  .object({
    is_archived: pyBool().optional().describe('true archives the file, false brings it back'),
    name: FileNameSchema.optional(),
  })
  .meta({ id: 'UserFileUpdate' });

/** What PATCH /api/v1/user/me/file/{file_id} validates (see `ApiOperation.request`). */
export const updateUserFileRequest = { path: FileIdPathSchema, body: UserFileUpdateSchema };

/** What DELETE /api/v1/user/me/file/{file_id} validates (see `ApiOperation.request`). */
export const deleteUserFileRequest = { path: FileIdPathSchema };
