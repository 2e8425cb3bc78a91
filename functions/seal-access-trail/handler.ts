import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { trailDigests } from '#shared/access-trail/adapters/s3-trail-digests.ts';
import { trailHashes } from '#shared/access-trail/adapters/dynamo-trail-hashes.ts';
import { sealAccessTrail, type SealResult } from '#shared/access-trail/seal-access-trail.ts';
import type { HandlerSettings } from '#shared/config/environment.ts';
import { logger } from '#shared/logger.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { dynamoDbClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import { sealAccessTrailFunction } from './function.ts';

/** What a run did, as its log line and its answer say it (`npm run invoke` shows it). */
function summaryOf(result: SealResult) {
  switch (result.kind) {
    case 'sealed': {
      const { digest } = result;
      return {
        outcome: result.kind,
        seq: digest.seq,
        sealedFrom: digest.sealedFrom,
        sealedThrough: digest.sealedThrough,
        entries: digest.entries.length,
      };
    }
    case 'up-to-date':
      return { outcome: result.kind, sealedThrough: result.sealedThrough };
    case 'sealed-by-another':
      return { outcome: result.kind, seq: result.seq };
  }
}

/**
 * EventBridge's schedule: each run seals the entries filed since the last digest. What the
 * event says is not read: the time is the clock's, and the progress is the last digest's.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'trailHashes' | 'trailDigests'>,
  settings: Pick<HandlerSettings, 'ACCESS_TRAIL_RETENTION_DAYS'>,
) =>
  middy<ScheduledEvent>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(observeInvocation())
    .handler(async () => {
      const result = await sealAccessTrail(
        { trail: adapters.trailHashes, digests: adapters.trailDigests },
        { retentionDays: settings.ACCESS_TRAIL_RETENTION_DAYS },
      );
      const summary = summaryOf(result);
      logger.info('Access trail sealed', summary);
      return summary;
    });

export const handler = lambdaEntry(sealAccessTrailFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, dynamodb: dynamoDbClient, s3: s3Client },
      { trailHashes, trailDigests },
    ),
    env,
  ),
);
