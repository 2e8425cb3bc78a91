/**
 * The events of AWS's event sources, as `npm run --silent event` prints them for `npm run
 * invoke` (`sam local generate-event`'s job); the HTTP one is the gateway's (`httpEvent`).
 */
import { randomUUID } from 'node:crypto';
import type { S3Event, SNSEvent, SQSEvent } from 'aws-lambda';
import { encodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import { LOCAL_REGION } from '../stage/stand-ins.ts';
import { sqsRecordOf } from '../queue/in-process-queue.ts';
import { objectCreatedEvent } from '../object-store/bucket-store.ts';

const ACCOUNT = '000000000000';

/** One S3 `ObjectCreated:Put` notification of an object of `bucket`. */
export function s3PutEvent(input: {
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
}): S3Event {
  // S3 sends keys URL-encoded, and the finalizer reads that form; nothing reads the ETag.
  const object = { key: encodeEventKey(input.key), size: input.size, etag: '0'.repeat(32) };
  return objectCreatedEvent(LOCAL_REGION, input.bucket, object, 'ObjectCreated:Put');
}

/** SQS messages as Lambda's event source mapping delivers them: one record per body. */
export function sqsEvent(input: {
  readonly queueName: string;
  readonly bodies: readonly string[];
}): SQSEvent {
  const sentAt = Date.now();
  const arn = `arn:aws:sqs:${LOCAL_REGION}:${ACCOUNT}:${input.queueName}`;
  const message = (body: string) => ({
    ...{ messageId: randomUUID(), receiptHandle: randomUUID(), body, sentAt },
    ...{ receiveCount: 1, firstReceivedAt: sentAt },
  });
  return { Records: input.bodies.map((body) => sqsRecordOf(message(body), arn)) };
}

type AlarmState = 'ALARM' | 'OK' | 'INSUFFICIENT_DATA';

/**
 * A CloudWatch alarm's change of state as SNS hands it to the alarm topic's subscriber: the
 * fields of AWS's sample that PostAlarm reads.
 */
export function snsAlarmEvent(input: {
  readonly alarmName: string;
  readonly newState: AlarmState;
  readonly oldState: AlarmState;
}): SNSEvent {
  const at = new Date().toISOString();
  const topicArn = `arn:aws:sns:${LOCAL_REGION}:${ACCOUNT}:alarms`;
  const message = {
    ...{ AlarmName: input.alarmName, AlarmDescription: null, AWSAccountId: ACCOUNT },
    ...{ NewStateValue: input.newState, NewStateReason: `Set by npm run event at ${at}` },
    // CloudWatch writes its time with a numeric zone, and the region's display name.
    ...{ StateChangeTime: at.replace('Z', '+0000'), Region: 'US East (N. Virginia)' },
    AlarmArn: `arn:aws:cloudwatch:${LOCAL_REGION}:${ACCOUNT}:alarm:${input.alarmName}`,
    OldStateValue: input.oldState,
  };
  const sns = {
    ...{ Type: 'Notification', MessageId: randomUUID(), TopicArn: topicArn },
    Subject: `${input.newState}: "${input.alarmName}" in ${LOCAL_REGION}`.slice(0, 100),
    ...{ Message: JSON.stringify(message), Timestamp: at, MessageAttributes: {} },
    ...{ SignatureVersion: '1', Signature: 'local', SigningCertUrl: '', UnsubscribeUrl: '' },
  };
  const subscription = { EventSubscriptionArn: `${topicArn}:${randomUUID()}` };
  return { Records: [{ EventSource: 'aws:sns', EventVersion: '1.0', ...subscription, Sns: sns }] };
}
