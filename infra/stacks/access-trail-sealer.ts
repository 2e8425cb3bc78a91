import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SEAL_PERIOD_MINUTES } from '#shared/access-trail/seal-access-trail.ts';

export interface AccessTrailSealerProps {
  /** SealAccessTrail: seals the entries filed since the last digest. */
  readonly sealer: IFunction;
}

/**
 * The access trail's seal, on a schedule: an EventBridge rule invokes the sealer every few
 * minutes, admitted by the function's own policy for this rule's ARN alone. (EventBridge
 * Scheduler, which AWS now advises for schedules, would invoke it as a role granted the
 * function and all its versions, `<arn>:*`: a wildcard for nothing gained.) A run that fails,
 * or is delivered late, is not tried again: the next one seals from the same last digest,
 * minutes later, and the sealer's errors alarm meanwhile. Two runs at once write one digest:
 * the second finds its seq taken.
 */
export class AccessTrailSealer extends Construct {
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: AccessTrailSealerProps) {
    super(scope, id);
    const period = Duration.minutes(SEAL_PERIOD_MINUTES);
    props.sealer.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: period });
    this.rule = new Rule(this, 'Schedule', {
      description: "Seals the access trail's new entries into the next digest",
      schedule: Schedule.rate(period),
      targets: [new LambdaFunction(props.sealer, { retryAttempts: 2, maxEventAge: period })],
    });
  }
}
