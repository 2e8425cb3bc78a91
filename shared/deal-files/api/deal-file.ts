import * as z from 'zod';
import { ListPageQuerySchema } from '../../http/list-page.ts';
import { FileTypeSchema } from '../../http/file-type-schema.ts';
import { pyId } from '../../http/fastapi/pydantic-fields.ts';

/** The contract's DealFile (section 2.2), as the update returns it. */
export const DealFileSchema = z
  .object({
    name: z.string().optional().describe('Human-readable name of the file'),
    id: z.int().optional(),
    deal_id: z.int().nullable().optional(),
    type: FileTypeSchema.nullable().optional().describe('Type of the file'),
    created_at: z.iso.datetime().nullable().optional(),
    updated_at: z.iso.datetime().nullable().optional(),
    is_archived: z.boolean().nullable().optional(),
  })
  .meta({ id: 'DealFile' });

export type DealFileBody = z.input<typeof DealFileSchema>;

/**
 * PUT body: `type` absent leaves it, null clears it. Fields it does not name are dropped, as
 * Pydantic ignores them, and never reach the record.
 */
const DealFileUpdateSchema = z
  .object({ type: FileTypeSchema.nullable().optional() })
  .meta({ id: 'DealFileUpdate' });

/** A deal in the path: ids are any integers; those that name nothing of the caller's are 404s. */
const groupId = pyId().meta({ param: { example: 1 } });
const dealId = pyId().meta({ param: { example: 3 } });
const DealPathSchema = z.object({ group_id: groupId, deal_id: dealId });
const DealFilePathSchema = z.object({
  group_id: groupId,
  deal_id: dealId,
  file_id: pyId().meta({ param: { example: 6 } }),
});

/** What GET …/deal/{deal_id}/file validates (see `ApiOperation.request`). */
export const listDealFilesRequest = { path: DealPathSchema, query: ListPageQuerySchema };

/** What PUT …/deal/{deal_id}/file/{file_id} validates (see `ApiOperation.request`). */
export const updateDealFileRequest = { path: DealFilePathSchema, body: DealFileUpdateSchema };

/** What GET …/deal/{deal_id}/file/{file_id} validates (see `ApiOperation.request`). */
export const getDealFileRequest = { path: DealFilePathSchema };

/** What DELETE …/deal/{deal_id}/file/{file_id} validates (see `ApiOperation.request`). */
export const deleteDealFileRequest = { path: DealFilePathSchema };

/** What GET …/deal/{deal_id}/file/{file_id}/download validates (see `ApiOperation.request`). */
export const downloadDealFileRequest = { path: DealFilePathSchema };
