import type { FormLimits } from '../../http/fastapi/multipart-form.ts';
import { MAX_UPLOAD_BYTES, tooLargeMessage } from '../upload-limits.ts';

/** The upload form's limits, lower than Starlette's (1,000 files and fields, 1 MB a part): one file, a few small fields. */
export const UPLOAD_FORM_LIMITS: FormLimits = {
  maxFileBytes: MAX_UPLOAD_BYTES,
  fileTooLargeMessage: tooLargeMessage(),
  maxFieldBytes: 16 * 1024,
  maxFields: 16,
  maxFiles: 1,
};
