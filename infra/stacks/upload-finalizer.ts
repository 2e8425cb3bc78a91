import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { EventType, type IBucket } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DIRECT_UPLOAD_OBJECT_PREFIX } from '#shared/storage/keys.ts';

export interface UploadFinalizerProps {
  readonly finalizer: IFunction;
  readonly bucket: IBucket;
  /** Where events still failing after Lambda's two retries go. */
  readonly failures: IQueue;
}

/**
 * S3 calls the finalizer asynchronously for every object created under `uploads/`. Events it
 * still fails on after Lambda's two retries go to a queue, not into the void.
 */
export class UploadFinalizer extends Construct {
  constructor(scope: Construct, id: string, props: UploadFinalizerProps) {
    super(scope, id);
    const { finalizer } = props;
    finalizer.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(props.failures),
    });
    // Notifications set on an imported bucket live in this stack: the data stack never
    // depends on the functions, so either stack deploys on its own.
    props.bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(finalizer), {
      // Signed upload forms write under this prefix.
      prefix: DIRECT_UPLOAD_OBJECT_PREFIX,
    });
  }
}
