/**
 * The alarm topic's chat poster, end to end but for SNS itself: a real SNS-shaped event (as
 * SNS hands a CloudWatch alarm's notification to a subscribed function) into the handler, on
 * the webhook adapter against a real HTTP receiver and the channel's pace in DynamoDB Local.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHandler } from '#functions/post-alarm/handler.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { localLambdaContext } from '#infra/local/lambda/lambda-context.ts';
import { DynamoTokenBuckets } from '#shared/notifications/adapters/dynamo-token-buckets.ts';
import { chatChannelBucketKey } from '#shared/storage/keys.ts';
import { SlackWebhookChannel } from '#shared/notifications/adapters/slack-webhook-channel.ts';
import { CLOUDWATCH_ALARM_NOTIFICATION } from '#test/support/cloudwatch-alarm-notification.ts';
import { waitLimit } from '#test/support/wait-limit.ts';
import { standInClients } from '#test/support/test-stage.ts';
import { startWebhookReceiver, type WebhookReceiver } from '#test/support/webhook-receiver.ts';

const { dynamodb, dynamodbEndpoint } = standInClients();
const table = `alarms-${randomUUID().slice(0, 8)}`;
const buckets = new DynamoTokenBuckets(dynamodb, table);
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:FileService-production-api-AlarmTopic';
const ALARM = 'FileService-production-api-AlarmsApi5xx0A1B2C3D-9Z8Y7X';

/** What CloudWatch publishes for one of our alarms, the API's 5xx, on a change of state. */
const alarmNotification = (newState: string, oldState: string) =>
  JSON.stringify({
    ...CLOUDWATCH_ALARM_NOTIFICATION,
    AlarmName: ALARM,
    AlarmDescription: 'The API answered 5xx: see its access log for the request ids',
    AlarmArn: `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:${ALARM}`,
    NewStateValue: newState,
    OldStateValue: oldState,
  });

/** One SNS notification as SNS invokes a subscribed function with it: one record. */
const snsEvent = (message: string, subject = 'ALARM: "x" in EU (Ireland)'): SNSEvent => ({
  Records: [
    {
      EventSource: 'aws:sns',
      EventVersion: '1.0',
      EventSubscriptionArn: `${TOPIC}:${randomUUID()}`,
      Sns: {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: TOPIC,
        Subject: subject,
        Message: message,
        Timestamp: '2026-11-27T10:15:00.456Z',
        SignatureVersion: '1',
        Signature: 'EXAMPLE',
        SigningCertUrl: 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000.pem',
        UnsubscribeUrl: `https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${TOPIC}`,
        MessageAttributes: {},
      },
    },
  ],
});

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  await ensureTable(dynamodbEndpoint, table);
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(async () => {
  receiver.reset();
  await dynamodb.send(new DeleteCommand({ TableName: table, Key: chatChannelBucketKey() }));
});

/** The poster on the receiver, with short retries and a fast channel unless told otherwise. */
const poster = (postsPerSecond = 100) =>
  createHandler(
    {
      chat: new SlackWebhookChannel(() => Promise.resolve(receiver.url), {
        timeoutMs: waitLimit(5_000),
      }),
      rateLimits: buckets,
    },
    {
      CHAT_RETRY_BASE_SECONDS: 0.05,
      CHAT_TIMEOUT_SECONDS: waitLimit(5),
      CHAT_POSTS_PER_SECOND: postsPerSecond,
    },
  );

const invoke = (event: SNSEvent, timeLeftMs = 600_000, postsPerSecond?: number) =>
  poster(postsPerSecond)(event, localLambdaContext('PostAlarm', timeLeftMs, 256));

describe('PostAlarm: one chat message per alarm state change', () => {
  it('posts CloudWatch’s notification as one readable message', async () => {
    await invoke(snsEvent(alarmNotification('ALARM', 'OK')));
    expect(receiver.delivered()).toHaveLength(1);
    const payload = receiver.posts[0]?.payload as { text: string; blocks: unknown[] };
    expect(payload.text).toBe(`🔴 ALARM: ${ALARM} in eu-west-1`);
    const shown = JSON.stringify(payload.blocks);
    expect(shown).toContain('The API answered 5xx');
    expect(shown).toContain('✅ OK → 🔴 ALARM');
    expect(shown).toContain('Reason: Threshold Crossed');
    expect(shown).toContain(
      `https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#alarmsV2:alarm/${ALARM}`,
    );
    expect(receiver.posts[0]?.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('posts a message of another kind on the topic as its subject and text', async () => {
    await invoke(snsEvent('Your budget is spent', 'Budget alert'));
    expect(receiver.posts.map((post) => post.payload)).toEqual([
      {
        text: 'Budget alert',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Budget alert', emoji: false } },
          {
            type: 'section',
            text: { type: 'plain_text', text: 'Your budget is spent', emoji: false },
          },
        ],
      },
    ]);
  });

  it('leaves out a new alarm’s first OK, which a deploy sends for each alarm, but not its ALARM', async () => {
    await invoke(snsEvent(alarmNotification('OK', 'INSUFFICIENT_DATA')));
    expect(receiver.posts).toEqual([]);
    await invoke(snsEvent(alarmNotification('ALARM', 'INSUFFICIENT_DATA')));
    expect(receiver.delivered()).toHaveLength(1);
    expect(JSON.stringify(receiver.posts[0]?.payload)).toContain('⚪ INSUFFICIENT DATA → 🔴 ALARM');
  });

  it('tries again after a 5xx, as the worker does, and posts once', async () => {
    receiver.answer({ status: 503, body: 'busy' }, { status: 500 });
    await invoke(snsEvent(alarmNotification('OK', 'ALARM')));
    expect(receiver.posts.map((post) => post.answeredWith)).toEqual([503, 500, 200]);
    expect(receiver.delivered()).toHaveLength(1);
  });

  it('a webhook that refuses the message is not tried again, and the invocation fails', async () => {
    receiver.answer({ status: 404, body: 'no_service' });
    await expect(invoke(snsEvent(alarmNotification('ALARM', 'OK')))).rejects.toThrow(
      'Not posted after 1 tries: HTTP 404: no_service',
    );
    expect(receiver.posts).toHaveLength(1);
  });

  it('gives up at once when the webhook’s Retry-After would outlast the invocation', async () => {
    receiver.answerAlways({ status: 429, headers: { 'retry-after': '120' } });
    await expect(invoke(snsEvent(alarmNotification('ALARM', 'OK')), 30_000)).rejects.toThrow(
      'Not posted after 1 tries: HTTP 429',
    );
    expect(receiver.posts).toHaveLength(1);
    // The channel stays held for every poster, the notification worker's too.
    expect(
      await buckets.take({ kind: 'chat-channel' }, { perSecond: 100, burst: 1 }, new Date()),
    ).toMatchObject({ admitted: false });
  });

  it('keeps to the channel’s pace, shared with the notification worker', async () => {
    const perSecond = 4;
    // The worker has just posted: the channel's next slot is a quarter second away.
    await buckets.take({ kind: 'chat-channel' }, { perSecond, burst: 1 }, new Date());
    const start = Date.now();
    await invoke(snsEvent(alarmNotification('ALARM', 'OK')), 600_000, perSecond);
    expect(receiver.delivered()).toHaveLength(1);
    expect((receiver.posts[0]?.at ?? 0) - start).toBeGreaterThanOrEqual(200);
  });
});
