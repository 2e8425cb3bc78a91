import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { GuardDutyScanResultNotificationEvent } from 'aws-lambda';
import { logger } from '#shared/logger.ts';
import { recordMetric } from '#shared/observability/metrics.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { tracer } from '#shared/observability/tracer.ts';
import { recordScanVerdict } from '#shared/scanning/record-scan-verdict.ts';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { s3Client } from '#shared/storage/aws/s3.ts';
import { blobs } from '#shared/blobs/adapters/s3-blob-store.ts';
import { fileScans } from '#shared/scanning/adapters/dynamo-file-scans.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import { recordScanVerdictFunction } from './function.ts';

/**
 * GuardDuty's "Object Scan Result" event for an object of the files bucket: the verdict goes
 * on the record the object backs. A repeat or an overtaken event changes nothing; a verdict
 * for a file not recorded yet throws, so that Lambda delivers it again (and, after its
 * retries, sets it aside in the scan-event failures queue, where nothing is lost).
 */
export const createHandler = (adapters: Pick<ServiceAdapters, 'fileScans' | 'blobs'>) => {
  return middy<GuardDutyScanResultNotificationEvent>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(observeInvocation())
    .handler(async (event) => {
      const { s3ObjectDetails, scanResultDetails } = event.detail;
      const verdict = {
        objectKey: s3ObjectDetails.objectKey,
        result: scanResultDetails.scanResultStatus,
        at: event.time,
      };
      const outcome = await recordScanVerdict(
        { scans: adapters.fileScans, objects: adapters.blobs },
        verdict,
      );
      tracer.putAnnotation('outcome', outcome.kind);
      if (outcome.kind !== 'recorded') {
        logger.info('Scan verdict changes nothing', { ...verdict, outcome: outcome.kind });
        return;
      }
      logger.info('Scan verdict recorded', { ...verdict, file: outcome.file });
      recordMetric('FilesScanned');
      if (verdict.result === 'THREATS_FOUND') {
        logger.warn('Malware found in a stored file', {
          ...verdict,
          threats: scanResultDetails.threats?.map((threat) => threat.name) ?? [],
        });
        recordMetric('ThreatsFound');
      } else if (verdict.result !== 'NO_THREATS_FOUND') recordMetric('ScanFailures');
    });
};

export const handler = lambdaEntry(recordScanVerdictFunction.variables, (env) =>
  createHandler(
    composeAdapters({ ...env, documents: documentClient, s3: s3Client }, { fileScans, blobs }),
  ),
);
