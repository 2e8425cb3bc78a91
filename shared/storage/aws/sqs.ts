import { SQSClient } from '@aws-sdk/client-sqs';
import { tracer } from '../../observability/tracer.ts';

let client: SQSClient | undefined;

/** One SQS client per container, created on first use, traced. */
export function sqsClient(): SQSClient {
  client ??= tracer.captureAWSv3Client(new SQSClient({}));
  return client;
}
