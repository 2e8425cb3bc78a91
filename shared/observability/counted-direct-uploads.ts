import type { DirectUploadRepository } from '../direct-uploads/direct-upload-repository.ts';
import { recordMetric } from './metrics.ts';

/**
 * The direct uploads port of a completer (the complete route, the S3-event finalizer), which
 * counts the completions and refusals its writes made. Both completers call the same use case,
 * and only the one whose write lands may count, so the count sits on the write, not on the
 * answer: every later caller gets the same file or refusal and counts nothing.
 */
export function countedDirectUploads(uploads: DirectUploadRepository): DirectUploadRepository {
  return {
    start: (upload) => uploads.start(upload),
    find: (userId, fileId) => uploads.find(userId, fileId),
    claim: (userId, fileId, claim, now) => uploads.claim(userId, fileId, claim, now),
    release: (userId, fileId, token) => uploads.release(userId, fileId, token),
    cancel: (userId, fileId, now) => uploads.cancel(userId, fileId, now),
    reject: async (userId, fileId, reason, token) => {
      const rejected = await uploads.reject(userId, fileId, reason, token);
      if (rejected) recordMetric('DirectUploadsRejected');
      return rejected;
    },
    complete: async (file, token) => {
      const outcome = await uploads.complete(file, token);
      if (outcome === 'completed') {
        recordMetric('DirectUploadsCompleted');
        recordMetric('DirectUploadBytes', file.filesize);
      }
      return outcome;
    },
  };
}
