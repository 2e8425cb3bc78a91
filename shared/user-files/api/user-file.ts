import * as z from 'zod';
import { FileIdPathSchema } from './file-id-path.ts';
import { FileTypeSchema } from '../../http/file-type-schema.ts';
import { ListPageQuerySchema } from '../../http/list-page.ts';

/** The contract's UserFile (section 2.1), as every endpoint returns it. */
export const UserFileSchema = z
  .object({
    name: z.string().describe('Human-readable name of the file'),
    id: z.int(),
    user_id: z.int().describe('Owner'),
    type: FileTypeSchema.nullable().optional(),
    created_at: z.string().optional().describe('Timestamp'),
    updated_at: z.string().nullable().optional().describe('Timestamp'),
    is_archived: z.boolean().nullable().optional(),
    filesize: z.int().default(0).describe('Size in bytes'),
    location: z.string().nullable().optional(),
  })
  .meta({ id: 'UserFile' });

export type UserFileBody = z.input<typeof UserFileSchema>;

/** What GET /api/v1/user/me/file validates (see `ApiOperation.request`): paging, if asked. */
export const listUserFilesRequest = { query: ListPageQuerySchema };

/** What GET /api/v1/user/me/file/{file_id} validates (see `ApiOperation.request`). */
export const getUserFileRequest = { path: FileIdPathSchema };
