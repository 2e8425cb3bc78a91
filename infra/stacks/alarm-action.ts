import { Annotations, CfnOutput, type Stack } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { StageConfig } from '../stages.ts';

/** Where the stage's alarms go: the topic, and the action that publishes to it. */
export interface AlarmTarget {
  readonly topic: ITopic;
  readonly action: IAlarmAction;
}

/**
 * The stage's alarm target: an existing SNS topic, or one of ours (with an email). Chat comes
 * later, once the functions exist (`postAlarmsToChat`).
 */
export function alarmTarget(stack: Stack, stage: StageConfig): AlarmTarget {
  if (stage.alarmTopicArn !== undefined) {
    const existing = Topic.fromTopicArn(stack, 'ExistingAlarmTopic', stage.alarmTopicArn);
    return { topic: existing, action: new SnsAction(existing) };
  }
  const topic = new Topic(stack, 'AlarmTopic', {
    displayName: `File service ${stage.name} alarms`,
    enforceSSL: true,
  });
  // enforceSSL writes a topic policy, which replaces SNS's default one: CloudWatch needs
  // its own statement, for this account's alarms only.
  topic.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*`,
        },
      },
    }),
  );
  if (stage.alarmEmail !== undefined) {
    topic.addSubscription(new EmailSubscription(stage.alarmEmail));
  } else if (!stage.alarmChat) {
    Annotations.of(topic).addWarningV2(
      'file-service:alarm-target',
      `The ${stage.name} stage's alarms go to a topic nobody subscribes to: set alarmEmail, alarmChat or alarmTopicArn, or subscribe to the AlarmTopicArn output`,
    );
  } else {
    // The poster's own Errors alarm goes to the same chat: a webhook that fails tells no one.
    Annotations.of(topic).addWarningV2(
      'file-service:alarm-chat-only',
      `The ${stage.name} stage's alarms go to chat only: an alarm the webhook refuses is lost (PostAlarm's errors alarm goes to the same chat); set alarmEmail too, or subscribe to the AlarmTopicArn output`,
    );
  }
  new CfnOutput(stack, 'AlarmTopicArn', { value: topic.topicArn });
  return { topic, action: new SnsAction(topic) };
}

/**
 * With `alarmChat`, the alarm topic (the stage's own or the existing one) invokes the chat
 * poster with each message. The poster tries again in place by the channel's rules, so
 * Lambda's own retries of an asynchronous invocation (two, a minute apart and then two)
 * would only post a failing webhook more.
 */
export function postAlarmsToChat(target: AlarmTarget, stage: StageConfig, poster: IFunction) {
  if (!stage.alarmChat) return;
  poster.configureAsyncInvoke({ retryAttempts: 0 });
  target.topic.addSubscription(new LambdaSubscription(poster));
}
