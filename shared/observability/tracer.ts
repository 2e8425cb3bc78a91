import { Tracer } from '@aws-lambda-powertools/tracer';
// A CommonJS module: Node's ESM loader sees its exports only as the default one.
import xray from 'aws-xray-sdk-core';
import { SERVICE_NAME } from './business-metrics.ts';

/** Each call's parameters a trace records: the resource it touched, never what it named in it. */
const named = (parameter: string, as: string) => ({
  request_descriptors: { [parameter]: { rename_to: as } },
});
const operations = (names: readonly string[], parameters: object) =>
  Object.fromEntries(names.map((name) => [name, parameters]));

/**
 * What X-Ray records of each AWS call, replacing the SDK's default list: that one records S3
 * object keys, and ours carry user, group and deal ids (`users/<uid>/files/<id>`). Calls not
 * listed here are still traced, by service, operation, status and time.
 */
const RECORDED_PARAMETERS = {
  services: {
    dynamodb: {
      operations: operations(
        ['getItem', 'putItem', 'updateItem', 'deleteItem', 'query', 'scan'],
        named('TableName', 'table_name'),
      ),
    },
    s3: {
      operations: operations(
        [
          'getObject',
          'putObject',
          'headObject',
          'copyObject',
          'deleteObject',
          'deleteObjects',
          'listObjectsV2',
          'listObjectVersions',
        ],
        named('Bucket', 'bucket_name'),
      ),
    },
    sqs: {
      operations: operations(
        ['sendMessage', 'changeMessageVisibility'],
        named('QueueUrl', 'queue_url'),
      ),
    },
  },
};

xray.setAWSWhitelist(RECORDED_PARAMETERS);

/**
 * One X-Ray tracer per container; it traces only inside Lambda (elsewhere every call is a
 * no-op). AWS SDK clients are captured where they are made (`#shared/storage/aws/`).
 * Outgoing HTTPS is not captured: the chat webhook's URL is its secret, and a traced request
 * would store it in the trace.
 */
export const tracer = new Tracer({ serviceName: SERVICE_NAME, captureHTTPsRequests: false });
