import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { S3Event } from 'aws-lambda';
import { decodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import { parseDirectUploadObjectKey } from '#shared/storage/keys.ts';
import {
  CompletionInProgress,
  judgeUploadedBytes,
} from '#shared/direct-uploads/complete-direct-upload.ts';
import { isOutcome } from '#shared/domain/outcome.ts';
import { logger } from '#shared/logger.ts';
import { countCompletion, countRefusal } from '#shared/observability/direct-upload-metrics.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { tracer } from '#shared/observability/tracer.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { directUploads } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { finalizeDirectUploadFunction } from './function.ts';

/**
 * S3 ObjectCreated under `uploads/`: every time a signed form writes, the bytes are judged.
 * While their upload waits, they complete it, the same way the client's complete call does,
 * whichever comes first; after it was recorded or refused, they are deleted. An outcome the
 * client would be told (refused, not uploaded) ends here; anything else, including another
 * completer still holding the upload, is thrown, so that Lambda retries the event.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'directUploads' | 'userFiles' | 'blobs'>,
  settings: Pick<HandlerSettings, 'MALWARE_SCANNING'>,
) => {
  const ports = { ...adapters, scanning: settings.MALWARE_SCANNING === 'on' };
  return middy<S3Event>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(observeInvocation())
    .handler(async (event) => {
      const failures: unknown[] = [];
      for (const record of event.Records) {
        const key = decodeEventKey(record.s3.object.key);
        const owner = key === undefined ? undefined : parseDirectUploadObjectKey(key);
        if (owner === undefined || !record.eventName.startsWith('ObjectCreated:')) continue;
        try {
          const judged = await judgeUploadedBytes(ports, owner.userId, owner.fileId);
          if (judged !== 'discarded') {
            countCompletion(judged);
            const { file } = judged;
            logger.info('Direct upload recorded', { key, fileId: file.id, size: file.filesize });
          }
        } catch (error) {
          countRefusal(error);
          if (isOutcome(error) && !(error instanceof CompletionInProgress)) {
            logger.info('Object is no completable direct upload', {
              key,
              outcome: error.kind,
              reason: error.message,
            });
          } else {
            logger.error('Could not complete a direct upload', { key, error });
            failures.push(error);
          }
        }
      }
      tracer.putAnnotation('outcome', failures.length > 0 ? 'failed' : 'ok');
      if (failures.length > 0) throw new AggregateError(failures, 'Direct uploads not completed');
    });
};

export const handler = lambdaEntry(finalizeDirectUploadFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, s3: s3Client },
      { directUploads, userFiles, blobs },
    ),
    env,
  ),
);
