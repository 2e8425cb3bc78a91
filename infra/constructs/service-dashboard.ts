import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { type ITableV2, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type BusinessMetric,
  COLD_START_METRIC,
  SERVICE_NAME,
} from '#shared/observability/business-metrics.ts';

export interface ServiceDashboardProps {
  /** The stage's name, in the dashboard's heading. */
  readonly stageName: string;
  readonly api: IHttpApi;
  /** Every function of the stage, by its function id (the label of its line). */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly table: ITableV2;
  /** The notification queue, whose depth and oldest message show how far behind the worker is. */
  readonly notificationQueue: IQueue;
  /** Each dead-letter queue, by the label of its line. */
  readonly deadLetterQueues: ReadonlyMap<string, IQueue>;
  /** Where the functions' own metrics are (POWERTOOLS_METRICS_NAMESPACE). */
  readonly metricsNamespace: string;
  /**
   * The period of every data point.
   *
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
}

/** The DynamoDB operations the functions and the operator CLI call. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.SCAN,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

const WIDTH = 24;

/**
 * One CloudWatch dashboard for a deployed stage, top to bottom: the API as clients see it,
 * the functions, the table and the queues, then the service's own metrics. The name is
 * CloudFormation's; the API stack outputs the dashboard's console address.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const period = props.period ?? Duration.minutes(5);
    const functions = [...props.functions];
    const business = (
      name: BusinessMetric,
      options: { statistic?: string; label?: string; dimensions?: Record<string, string> } = {},
    ): IMetric =>
      new Metric({
        namespace: props.metricsNamespace,
        metricName: name,
        dimensionsMap: { service: SERVICE_NAME, ...options.dimensions },
        statistic: options.statistic ?? 'Sum',
        label: options.label ?? name,
        period,
      });
    const graph = (title: string, left: IMetric[], width = WIDTH / 3, right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width, height: 6 });
    const perFunction = (title: string, metric: (fn: IFunction) => Metric) =>
      graph(
        title,
        functions.map(([functionId, fn]) => metric(fn).with({ label: functionId })),
        WIDTH / 2,
      );

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# File service: ${props.stageName}\nThe API as clients see it, the functions, the table and queues, then the service's own metrics (namespace \`${props.metricsNamespace}\`). What each line means: docs/operating.md in the repository.`,
        width: WIDTH,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('API requests', [
        props.api.metricCount({ period, statistic: 'Sum', label: 'Requests' }),
      ]),
      graph('API 4xx and 5xx', [
        props.api.metricClientError({ period, label: '4xx' }),
        props.api.metricServerError({ period, label: '5xx' }),
      ]),
      graph('API latency', [
        props.api.metricLatency({ period, statistic: 'p50', label: 'p50' }),
        props.api.metricLatency({ period, statistic: 'p99', label: 'p99' }),
      ]),
    );
    this.dashboard.addWidgets(
      perFunction('Function errors', (fn) => fn.metricErrors({ period, statistic: 'Sum' })),
      perFunction('Function duration p99', (fn) => fn.metricDuration({ period, statistic: 'p99' })),
    );
    this.dashboard.addWidgets(
      perFunction('Function throttles', (fn) => fn.metricThrottles({ period, statistic: 'Sum' })),
      perFunction('Function concurrency (max)', (fn) =>
        fn.metric('ConcurrentExecutions', { period, statistic: 'Maximum' }),
      ),
    );
    this.dashboard.addWidgets(
      graph('DynamoDB throttled requests', [
        props.table.metricThrottledRequestsForOperations({
          operations: TABLE_OPERATIONS,
          period,
        }),
      ]),
      graph(
        'Notification queue',
        [
          props.notificationQueue.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: 'Maximum',
            label: 'Waiting',
          }),
        ],
        WIDTH / 3,
        [
          props.notificationQueue.metricApproximateAgeOfOldestMessage({
            period,
            statistic: 'Maximum',
            label: 'Oldest (s)',
          }),
        ],
      ),
      graph(
        'Dead letters',
        [...props.deadLetterQueues].map(([label, queue]) =>
          queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label }),
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph('Uploads', [
        business('MultipartUploads'),
        business('DirectUploadsCompleted'),
        business('DirectUploadsRejected'),
      ]),
      graph('Uploaded bytes', [business('MultipartUploadBytes'), business('DirectUploadBytes')]),
      graph('Realtime tokens', [business('RealtimeTokensIssued')], WIDTH / 3, [
        business('RoomsPerToken', { statistic: 'Average', label: 'Rooms per token (avg)' }),
        business('RoomsPerToken', { statistic: 'Maximum', label: 'Rooms per token (max)' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Notifications', [
        business('NotificationsQueued'),
        business('NotificationsThrottled'),
        business('NotificationsSent'),
        business('NotificationsFailed'),
        business('NotificationsDeadLettered'),
      ]),
      graph('Malware scans', [
        business('FilesScanned'),
        business('ThreatsFound'),
        business('ScanFailures'),
      ]),
      graph('Refusals and replays', [
        business('Refusals', { dimensions: { statusClass: '4xx' }, label: 'Refusals 4xx' }),
        business('Refusals', { dimensions: { statusClass: '5xx' }, label: 'Refusals 5xx' }),
        business('IdempotentReplays'),
        business('AnswersTooLarge'),
        business('RefusalsNotRecorded'),
      ]),
      graph(
        'Cold starts',
        functions.map(
          ([functionId, fn]) =>
            new Metric({
              namespace: props.metricsNamespace,
              metricName: COLD_START_METRIC,
              dimensionsMap: { service: SERVICE_NAME, function_name: fn.functionName },
              statistic: 'Sum',
              label: functionId,
              period,
            }),
        ),
      ),
    );
  }
}
