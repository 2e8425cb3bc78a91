import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { S3Event } from 'aws-lambda';
import { decodeEventKey } from '#shared/aws/s3-event-key.ts';
import { parseUserFileObjectKey } from '#shared/data/keys.ts';
import { completeDirectUpload } from '#shared/direct-uploads/complete-direct-upload.ts';
import { completionPorts } from '#shared/direct-uploads/completion-ports.ts';
import { HttpError } from '#shared/http/http-errors.ts';
import { logger } from '#shared/logger.ts';

const ports = completionPorts();

/**
 * S3 ObjectCreated under `users/`: completes the direct upload the object belongs to, the
 * same way the client's complete call does, whichever comes first. Objects that are no
 * direct upload's (the multipart endpoint writes there too) are left alone. An outcome the
 * client would be told (refused, not ours) ends here; anything else is thrown, so that
 * Lambda retries the event.
 */
export const handler = middy<S3Event>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const failures: unknown[] = [];
    for (const record of event.Records) {
      const key = decodeEventKey(record.s3.object.key);
      const owner = key === undefined ? undefined : parseUserFileObjectKey(key);
      if (owner === undefined || !record.eventName.startsWith('ObjectCreated:')) continue;
      try {
        const file = await completeDirectUpload(ports, owner.userId, owner.fileId);
        logger.info('Direct upload recorded', { key, fileId: file.id, size: file.filesize });
      } catch (error) {
        if (error instanceof HttpError && error.statusCode < 500) {
          logger.info('Object is no completable direct upload', {
            key,
            outcome: error.statusCode,
            detail: error.detail,
          });
        } else {
          logger.error('Could not complete a direct upload', { key, error });
          failures.push(error);
        }
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, 'Direct uploads not completed');
  });
