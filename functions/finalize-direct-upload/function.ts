import { defineFunction } from '#shared/functions/function-declaration.ts';
import { DIRECT_UPLOAD_COMPLETION } from '#shared/functions/direct-upload-completion.ts';

/**
 * S3 invokes it for each object created under `uploads/` (`UploadFinalizer`); the events it
 * still fails on go to the upload-event failures queue, which CDK grants it to send to.
 */
export const finalizeDirectUploadFunction = defineFunction({
  id: 'FinalizeDirectUpload',
  entry: 'functions/finalize-direct-upload/handler.ts',
  description: 'Completes a direct upload when its object lands in the bucket',
  sizing: { memoryMb: 512, timeoutSeconds: 30 },
  ...DIRECT_UPLOAD_COMPLETION,
});
