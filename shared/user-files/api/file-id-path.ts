import * as z from 'zod';
import { pyId } from '../../http/fastapi/pydantic-fields.ts';

/** A file id in the path: any integer; one that names no file of the caller's is a 404. */
export const FileIdPathSchema = z.object({ file_id: pyId().meta({ param: { example: 42 } }) });

/** What GET …/{file_id}/download validates (see `ApiOperation.request`). */
export const downloadUserFileRequest = { path: FileIdPathSchema };
