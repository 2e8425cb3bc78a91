import { SQSClient } from '@aws-sdk/client-sqs';

let client: SQSClient | undefined;

/** One SQS client per container, created on first use. */
export function sqsClient(): SQSClient {
  client ??= new SQSClient({});
  return client;
}
