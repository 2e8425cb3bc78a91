import { Duration } from 'aws-cdk-lib';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { type IQueue, Queue, QueuePolicy } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** What GuardDuty Malware Protection for S3 sends to the default bus for each object scanned. */
export const SCAN_RESULT_SOURCE = 'aws.guardduty';
export const SCAN_RESULT_DETAIL_TYPE = 'GuardDuty Malware Protection Object Scan Result';

export interface ScanVerdictsProps {
  /** RecordScanVerdict: records each verdict on the files its object backs. */
  readonly verdicts: IFunction;
  /** The files bucket's name: only its scan results are ours. */
  readonly bucketName: string;
  /**
   * Where events still failing after the retries go: the data stack's ScanEventFailures, whose
   * one policy this construct writes.
   */
  readonly failures: IQueue;
}

/**
 * GuardDuty's scan results for the files bucket, from the default event bus to the verdict
 * function. EventBridge invokes it asynchronously: a delivery it cannot make lands in the
 * failures queue, and so does an event the function still throws on after Lambda's two
 * retries (a verdict whose file is not recorded yet, retried meanwhile). Nothing is lost.
 *
 * The queue's policy is made here, beside the rule, so that it admits EventBridge for this
 * rule's own ARN. The data stack cannot name the rule without depending on this stack, and a
 * name pattern does not hold: CloudFormation shortens a generated rule name (stack name and
 * logical id) to EventBridge's 64 characters. SQS keeps one policy a queue, so this one also
 * carries the TLS-only statement the data stack would otherwise write.
 */
export class ScanVerdicts extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: ScanVerdictsProps) {
    super(scope, id);
    const { verdicts } = props;
    verdicts.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(props.failures),
    });
    this.rule = new Rule(this, 'Rule', {
      description: "GuardDuty's malware-scan results for the files bucket",
      eventPattern: {
        source: [SCAN_RESULT_SOURCE],
        detailType: [SCAN_RESULT_DETAIL_TYPE],
        detail: { s3ObjectDetails: { bucketName: [props.bucketName] } },
      },
    });
    this.rule.addTarget(
      new LambdaFunction(verdicts, {
        // EventBridge's own defaults, said: a throttled delivery is retried for a day.
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
        // By ARN, so CDK adds no statement of its own: the queue's policy is the one below.
        deadLetterQueue: Queue.fromQueueArn(this, 'DeadLetters', props.failures.queueArn),
      }),
    );
    const policy = new QueuePolicy(this, 'DeadLetterPolicy', { queues: [props.failures] });
    policy.document.addStatements(
      new PolicyStatement({
        sid: 'TlsOnly',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['sqs:*'],
        resources: [props.failures.queueArn],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
      new PolicyStatement({
        sid: 'ScanResultRuleDeadLetters',
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [props.failures.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': this.rule.ruleArn } },
      }),
    );
  }
}
