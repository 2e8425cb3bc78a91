import { createHash } from 'node:crypto';
import type { NewUserFile } from './upload-user-file.ts';

/** What makes two uploads the same request, for Idempotency-Key replays. */
export function uploadFingerprint(upload: NewUserFile): string {
  return createHash('sha256')
    .update(JSON.stringify([upload.name, upload.type, upload.contentType]))
    .update(upload.content)
    .digest('base64url');
}
