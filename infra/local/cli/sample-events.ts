/**
 * Events as AWS hands them to our functions, built the way the local stage builds them: what
 * `npm run --silent event` prints, as `sam local generate-event` does.
 */
import { randomUUID } from 'node:crypto';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  S3Event,
  SNSEvent,
  SQSEvent,
} from 'aws-lambda';
import { API_ROUTES } from '#functions/service-functions.ts';
import { createRouteMatcher } from '#shared/api/route-matcher.ts';
import { routeKey } from '#shared/api/routes.ts';
import { encodeEventKey } from '#shared/storage/aws/s3-event-key.ts';
import { newRequestId, splitTarget, toApiGatewayEvent } from '../gateway/api-gateway-event.ts';
import { LOCAL_REGION } from '../stage/emulators.ts';
import { sqsRecordOf } from '../queue/in-process-queue.ts';
import type { EventClaims } from '../gateway/jwt-authorizer.ts';

const matchRoute = createRouteMatcher(API_ROUTES);

export interface HttpEventInput {
  readonly method: string;
  /** The request target: path, and a query string if any. */
  readonly target: string;
  /** `host:port` the client asked for. */
  readonly host: string;
  /** What the JWT authorizer passes on for a valid token; none for a public route. */
  readonly claims?: EventClaims;
  /** Headers in the order sent, names as written; repeats are kept. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: Buffer;
}

/**
 * The payload 2.0 event API Gateway's HTTP API sends for a request, as the local gateway
 * builds it: the route the table matches (the fallback's `$default` when none does), its
 * path parameters, the claims, lower-cased headers, and a text or base64 body.
 */
export function httpEvent(input: HttpEventInput): APIGatewayProxyEventV2WithJWTAuthorizer {
  const method = input.method.toUpperCase();
  const { rawPath, rawQueryString } = splitTarget(input.target);
  const found = matchRoute(method, rawPath);
  const body = input.body ?? Buffer.alloc(0);
  const named = new Set((input.headers ?? []).map(([name]) => name.toLowerCase()));
  const rawHeaders = [
    ...(named.has('host') ? [] : ['host', input.host]),
    ...(input.headers ?? []).flat(),
    ...(body.length > 0 && !named.has('content-length')
      ? ['content-length', String(body.length)]
      : []),
  ];
  const port = Number(input.host.split(':')[1] ?? 80);
  return toApiGatewayEvent({
    request: { method, rawHeaders, httpVersion: '1.1', socket: { localPort: port } },
    rawPath,
    rawQueryString,
    body,
    routeKey: found.kind === 'route' ? routeKey(found.route) : '$default',
    ...(found.kind === 'route' ? { pathParameters: found.params } : {}),
    ...(input.claims === undefined ? {} : { claims: input.claims }),
    requestId: newRequestId(),
    sourceIp: '127.0.0.1',
  });
}

/** One S3 `ObjectCreated:Put` notification, as S3 sends it to a function for a bucket. */
export function s3PutEvent(input: {
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  readonly at?: Date;
}): S3Event {
  const at = input.at ?? new Date();
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: LOCAL_REGION,
        eventTime: at.toISOString(),
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: 'local' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: {
          'x-amz-request-id': randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase(),
          'x-amz-id-2': randomUUID(),
        },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'local',
          bucket: {
            name: input.bucket,
            ownerIdentity: { principalId: 'local' },
            arn: `arn:aws:s3:::${input.bucket}`,
          },
          object: {
            // S3 sends keys URL-encoded, and the finalizer reads that form.
            key: encodeEventKey(input.key),
            size: input.size,
            // The object's own ETag is not known here; nothing of ours reads it.
            eTag: '0123456789abcdef0123456789abcdef',
            sequencer: at.getTime().toString(16).toUpperCase(),
          },
        },
      },
    ],
  };
}

/** SQS messages as Lambda's event source mapping delivers them: one record per body. */
export function sqsEvent(input: {
  readonly queueName: string;
  readonly bodies: readonly string[];
}): SQSEvent {
  const now = Date.now();
  const arn = `arn:aws:sqs:${LOCAL_REGION}:000000000000:${input.queueName}`;
  return {
    Records: input.bodies.map((body) =>
      sqsRecordOf(
        {
          messageId: randomUUID(),
          receiptHandle: randomUUID(),
          body,
          sentAt: now,
          receiveCount: 1,
          firstReceivedAt: now,
        },
        arn,
      ),
    ),
  };
}

/**
 * A CloudWatch alarm's change of state as SNS invokes the alarm topic's subscriber with it:
 * one record, whose message is CloudWatch's notification (its fields as AWS's sample shows
 * them; the trigger left out, since nothing of ours reads it).
 */
export function snsAlarmEvent(input: {
  readonly alarmName: string;
  readonly newState: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA';
  readonly oldState: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA';
  readonly description?: string;
  readonly at?: Date;
}): SNSEvent {
  const at = input.at ?? new Date();
  const account = '000000000000';
  const topicArn = `arn:aws:sns:${LOCAL_REGION}:${account}:alarms`;
  const message = {
    AlarmName: input.alarmName,
    AlarmDescription: input.description ?? null,
    AWSAccountId: account,
    NewStateValue: input.newState,
    NewStateReason: `Set by npm run event at ${at.toISOString()}`,
    // CloudWatch writes its time with a numeric zone: 2026-11-27T10:15:00.123+0000.
    StateChangeTime: at.toISOString().replace('Z', '+0000'),
    // CloudWatch writes the region's display name here; the ARN carries its code.
    Region: 'US East (N. Virginia)',
    AlarmArn: `arn:aws:cloudwatch:${LOCAL_REGION}:${account}:alarm:${input.alarmName}`,
    OldStateValue: input.oldState,
  };
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${topicArn}:${randomUUID()}`,
        Sns: {
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: topicArn,
          Subject: `${input.newState}: "${input.alarmName}" in ${LOCAL_REGION}`.slice(0, 100),
          Message: JSON.stringify(message),
          Timestamp: at.toISOString(),
          SignatureVersion: '1',
          Signature: 'local',
          SigningCertUrl: `https://sns.${LOCAL_REGION}.amazonaws.com/local.pem`,
          UnsubscribeUrl: `https://sns.${LOCAL_REGION}.amazonaws.com/?Action=Unsubscribe`,
          MessageAttributes: {},
        },
      },
    ],
  };
}
