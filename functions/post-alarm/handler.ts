import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SNSEvent, SNSEventRecord } from 'aws-lambda';
import { documentClient } from '#shared/storage/aws/dynamodb.ts';
import { secretsManagerClient } from '#shared/storage/aws/secrets-manager.ts';
import { logger } from '#shared/logger.ts';
import { alarmMessage, topicMessage } from '#shared/notifications/alarm-message.ts';
import {
  alarmStateChangeOf,
  isFirstEvaluationOk,
} from '#shared/notifications/alarm-state-change.ts';
import { postAlarm } from '#shared/notifications/post-alarm.ts';
import { observeInvocation } from '#shared/observability/observe-invocation.ts';
import { chat } from '#shared/notifications/adapters/slack-webhook-channel.ts';
import { rateLimits } from '#shared/notifications/adapters/dynamo-token-buckets.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import { lambdaEntry } from '#shared/wiring/lambda-entry.ts';
import type { ServiceAdapters } from '#shared/wiring/service-adapters.ts';
import { type ChatSettings, chatDeliveryRules } from '#shared/wiring/chat-delivery-rules.ts';
import { postAlarmFunction } from './function.ts';

/** An alarm that reached nobody in chat: the invocation fails, so its Errors alarm counts it. */
class AlarmNotPosted extends Error {
  override name = 'AlarmNotPosted';
}

/** The chat message for one SNS record: an alarm state change, or the record as it came. */
function messageOf(record: SNSEventRecord) {
  const change = alarmStateChangeOf(record.Sns.Message);
  return {
    change,
    message:
      change === undefined
        ? topicMessage(record.Sns.Subject ?? undefined, record.Sns.Message)
        : alarmMessage(change),
  };
}

/**
 * The alarm topic's subscriber: each record (SNS sends one an invocation) becomes one chat
 * message, posted by the notification worker's rules within the invocation's time; but a new
 * alarm's first OK, which a deploy sends for each alarm it creates, says nothing and is left out.
 */
export const createHandler = (
  adapters: Pick<ServiceAdapters, 'chat' | 'rateLimits'>,
  settings: ChatSettings,
) => {
  const rules = chatDeliveryRules(settings);
  return middy<SNSEvent>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(observeInvocation())
    .handler(async (event: SNSEvent, context: Context) => {
      for (const record of event.Records) {
        const { change, message } = messageOf(record);
        const about = {
          messageId: record.Sns.MessageId,
          alarmName: change?.alarmName,
          newState: change?.newState,
        };
        if (change !== undefined && isFirstEvaluationOk(change)) {
          logger.info('Alarm first evaluated OK: not posted', about);
          continue;
        }
        const result = await postAlarm(adapters, rules, message, () =>
          context.getRemainingTimeInMillis(),
        );
        if (result.outcome === 'not-posted') {
          logger.error('Alarm not posted to chat', { ...about, ...result });
          throw new AlarmNotPosted(`Not posted after ${result.tries} tries: ${result.reason}`);
        }
        logger.info('Alarm posted to chat', { ...about, tries: result.tries });
      }
    });
};

export const handler = lambdaEntry(postAlarmFunction.variables, (env) =>
  createHandler(
    composeAdapters(
      { ...env, documents: documentClient, secretsManager: secretsManagerClient },
      { chat, rateLimits },
    ),
    env,
  ),
);
