import { Annotations, CfnOutput, type Stack } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { StageConfig } from '../stages.ts';

/** The stage's alarm target: an existing SNS topic, or one of ours (with an email). */
export function alarmAction(stack: Stack, stage: StageConfig): IAlarmAction {
  if (stage.alarmTopicArn !== undefined) {
    return new SnsAction(Topic.fromTopicArn(stack, 'ExistingAlarmTopic', stage.alarmTopicArn));
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
  } else {
    Annotations.of(topic).addWarningV2(
      'file-service:alarm-target',
      `The ${stage.name} stage's alarms go to a topic nobody subscribes to: set alarmEmail or alarmTopicArn, or subscribe to the AlarmTopicArn output`,
    );
  }
  new CfnOutput(stack, 'AlarmTopicArn', { value: topic.topicArn });
  return new SnsAction(topic);
}
