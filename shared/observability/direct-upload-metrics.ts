import { type Completion, UploadRefused } from '../direct-uploads/complete-direct-upload.ts';
import { recordMetric } from './metrics.ts';

/*
 * Both completers of a direct upload (the complete route, the S3-event finalizer) call the
 * same use case and get the same answer, so each counts only what its own call's write did:
 * every later caller gets the same file or refusal and counts nothing.
 */

/** Counts a completion this call recorded. */
export function countCompletion(completion: Completion): void {
  if (!completion.recordedNow) return;
  recordMetric('DirectUploadsCompleted');
  recordMetric('DirectUploadBytes', completion.file.filesize);
}

/** Counts a refusal this call made; anything else thrown counts nothing here. */
export function countRefusal(error: unknown): void {
  if (error instanceof UploadRefused && error.refusedNow) recordMetric('DirectUploadsRejected');
}
