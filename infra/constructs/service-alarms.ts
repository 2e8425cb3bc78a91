import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IAlarmAction,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type BusinessMetric, SERVICE_NAME } from '#shared/observability/business-metrics.ts';

export interface ServiceAlarmsProps {
  /** Where every alarm (and its return to OK) is sent. */
  readonly action: IAlarmAction;
}

/**
 * The stage's alarms. Each fires on the first occurrence in a five-minute period: a function
 * that threw (our own fault: handled 4xx and retried webhooks are not errors), a throttled
 * invocation, a message resting in a dead-letter queue, or malware found in a stored file.
 */
export class ServiceAlarms extends Construct {
  private readonly action: IAlarmAction;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.action = props.action;
  }

  /** Errors and throttles of one function. */
  watchFunction(functionId: string, fn: IFunction): void {
    this.add(`${functionId}Errors`, {
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      description: `${functionId} threw: see its log group for the error and request id`,
    });
    this.add(`${functionId}Throttles`, {
      metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
      description: `${functionId} was throttled: the account or the function ran out of concurrency`,
    });
  }

  /**
   * Any 5xx the API sent, its own as well as the functions': an answer Lambda refused for its
   * size, an integration timeout, a throttled dependency. A function's log may say nothing of
   * these, so they are counted where the client sees them.
   */
  watchApi(api: IHttpApi): void {
    this.add('Api5xx', {
      metric: api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      description: 'The API answered 5xx: see its access log for the request ids',
    });
  }

  /** Any message in a dead-letter queue, which only an operator empties. */
  watchDeadLetters(id: string, queue: IQueue, what: string): void {
    this.add(`${id}Depth`, {
      metric: queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      description: `${what} are waiting in a dead-letter queue for an operator`,
    });
  }

  /**
   * Any file GuardDuty found malware in: the verdict function's `ThreatsFound` metric, in the
   * stage's namespace. The file's download is already refused; an operator decides the rest.
   */
  watchThreatsFound(metricsNamespace: string): void {
    this.add('ThreatsFound', {
      metric: new Metric({
        namespace: metricsNamespace,
        metricName: 'ThreatsFound' satisfies BusinessMetric,
        dimensionsMap: { service: SERVICE_NAME },
        period: Duration.minutes(5),
        statistic: 'Sum',
      }),
      description:
        'Malware was found in a stored file; its download is refused. See npm run admin -- scan list, and docs/operating.md',
    });
  }

  private add(
    id: string,
    { metric, description }: { metric: Alarm['metric']; description: string },
  ): void {
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: description,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
  }
}
