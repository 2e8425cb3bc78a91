/**
 * CloudWatch's message for one of our alarms, as it publishes it to SNS (every field of AWS's
 * sample notification), in a region other than the local stage's, so region and console link
 * are read from the alarm's ARN. Tests override the fields they are about.
 */
export const CLOUDWATCH_ALARM_NOTIFICATION = {
  AlarmName: 'FileService-production-api-AlarmsListUserFilesErrors4F2A9C1B-1X2Y3Z',
  AlarmDescription: 'ListUserFiles threw: see its log group for the error and request id',
  AWSAccountId: '123456789012',
  AlarmConfigurationUpdatedTimestamp: '2026-11-20T09:00:00.000+0000',
  NewStateValue: 'ALARM',
  NewStateReason:
    'Threshold Crossed: 1 out of the last 1 datapoints [2.0 (27/11/26 10:10:00)] was greater than or equal to the threshold (1.0) (minimum 1 datapoint for OK -> ALARM transition).',
  StateChangeTime: '2026-11-27T10:15:00.123+0000',
  Region: 'EU (Ireland)',
  AlarmArn:
    'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:FileService-production-api-AlarmsListUserFilesErrors4F2A9C1B-1X2Y3Z',
  OldStateValue: 'OK',
  OKActions: ['arn:aws:sns:eu-west-1:123456789012:FileService-production-api-AlarmTopic'],
  AlarmActions: ['arn:aws:sns:eu-west-1:123456789012:FileService-production-api-AlarmTopic'],
  InsufficientDataActions: [],
  Trigger: {
    MetricName: 'Errors',
    Namespace: 'AWS/Lambda',
    StatisticType: 'Statistic',
    Statistic: 'SUM',
    Unit: null,
    Dimensions: [{ value: 'FileService-production-api-ListUserFiles', name: 'FunctionName' }],
    Period: 300,
    EvaluationPeriods: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    Threshold: 1.0,
    TreatMissingData: 'notBreaching',
    EvaluateLowSampleCountPercentile: '',
  },
};
