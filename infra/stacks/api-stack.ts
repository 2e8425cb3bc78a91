import {
  CfnOutput,
  Fn,
  Lazy,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { deliverNotificationFunction } from '#functions/deliver-notification/function.ts';
import { finalizeDirectUploadFunction } from '#functions/finalize-direct-upload/function.ts';
import { initRealtimeKeysFunction } from '#functions/init-realtime-keys/function.ts';
import { postAlarmFunction } from '#functions/post-alarm/function.ts';
import { recordScanVerdictFunction } from '#functions/record-scan-verdict/function.ts';
import { sealAccessTrailFunction } from '#functions/seal-access-trail/function.ts';
import { API_ROUTES, FALLBACK_FUNCTION, SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import type { EnvironmentName } from '#shared/config/environment.ts';
import { metricsNamespace, SERVICE_NAME } from '#shared/observability/business-metrics.ts';
import { ServiceAlarms } from '../constructs/service-alarms.ts';
import { ServiceDashboard } from '../constructs/service-dashboard.ts';
import { AccessTrailSealer } from './access-trail-sealer.ts';
import { alarmTarget, postAlarmsToChat } from './alarm-action.ts';
import { apiDomainUrl, mapApiDomain } from './api-domain.ts';
import { apiCorsPreflight } from './cors.ts';
import { DATA_OUTPUTS, functionNameOutput, settingVariables, type StageConfig } from '../stages.ts';
import type { ServiceData } from './data-stack.ts';
import { HttpRoutes } from './http-routes.ts';
import { NotificationWorker } from './notification-worker.ts';
import { RealtimeKeys } from './realtime-keys.ts';
import { ScanVerdicts } from './scan-verdicts.ts';
import { ServiceFunctions } from './service-functions.ts';
import { UploadFinalizer } from './upload-finalizer.ts';

export interface ApiStackProps extends StackProps {
  readonly stage: StageConfig;
  readonly data: ServiceData;
  /** The repository root, where function entries start. */
  readonly root: string;
}

/** The enum member for a retention the stage config has already checked. */
function retentionDays(days: number): RetentionDays {
  const member = Object.values(RetentionDays).find(
    (value): value is RetentionDays => typeof value === 'number' && value.valueOf() === days,
  );
  if (member === undefined) throw new Error(`${String(days)} days is no log retention`);
  return member;
}

/** The JSON line API Gateway writes per request. */
const ACCESS_LOG = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationError: '$context.integrationErrorMessage',
    authorizerError: '$context.authorizer.error',
  }),
);

/**
 * The stage's compute: the HTTP API (the JWT authorizer on every contract route) and its
 * routes, the S3-event finalizer, the notification worker, the realtime keys' first key, the
 * alarms and the dashboard. Every function is made, from its declaration, in `Functions`
 * first; the rest take it from there. It holds no data, so it can be destroyed and
 * redeployed at will.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  /** Every function of the stage, by its declaration. */
  readonly functions: ServiceFunctions;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { stage, data } = props;
    const removalPolicy = stage.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = retentionDays(stage.logRetentionDays);
    // The bucket, named through the data stack's output: object grants then name it the same
    // way at synth as here, so their cdk-nag acknowledgements can name the resource.
    const dataStack = Stack.of(data.bucket);
    this.addStackDependency(dataStack, 'the functions read its bucket by its output');
    const bucket = Bucket.fromBucketAttributes(this, 'Files', {
      bucketName: Fn.getStackOutput(dataStack.stackName, DATA_OUTPUTS.bucketName),
    });
    const trailDigestBucket = Bucket.fromBucketAttributes(this, 'AccessTrailDigests', {
      bucketName: Fn.getStackOutput(dataStack.stackName, DATA_OUTPUTS.trailDigestBucketName),
    });

    const target = stage.alarms ? alarmTarget(this, stage) : undefined;
    const alarms =
      target === undefined
        ? undefined
        : new ServiceAlarms(this, 'Alarms', { action: target.action });
    alarms?.watchDeadLetters(
      'NotificationDeadLetters',
      data.notificationDeadLetters,
      'Submission notifications that could not be posted',
    );
    alarms?.watchDeadLetters(
      'UploadEventFailures',
      data.uploadEventFailures,
      'Object-created events the finalizer failed on',
    );
    // The data stack makes the queue only where the stage scans.
    const scanEventFailures = data.scanEventFailures;
    if (scanEventFailures !== undefined) {
      alarms?.watchDeadLetters(
        'ScanEventFailures',
        scanEventFailures,
        'Scan-result events the verdict function failed on',
      );
      alarms?.watchThreatsFound(metricsNamespace(stage.name));
    }

    // A value for every variable any function reads (each gets only its own): a name added
    // to the schema without a value here does not compile.
    let issuer = '';
    const environment: Readonly<Record<EnvironmentName, string>> = {
      STAGE: stage.name,
      TABLE_NAME: data.table.tableName,
      TRAIL_TABLE_NAME: data.trailTable.tableName,
      TRAIL_DIGEST_BUCKET_NAME: trailDigestBucket.bucketName,
      BUCKET_NAME: bucket.bucketName,
      REALTIME_ISSUER: Lazy.string({ produce: () => issuer }),
      REALTIME_KEYS_SECRET_ARN: data.realtimeKeys.secretArn,
      NOTIFY_QUEUE_URL: data.notificationQueue.queueUrl,
      NOTIFY_DLQ_URL: data.notificationDeadLetters.queueUrl,
      CHAT_WEBHOOK_SECRET_ARN: data.chatWebhook.secretArn,
      // The stage's settings, and the schema's defaults where no stage sets a variable.
      ...settingVariables(stage),
    };
    const functions = (this.functions = new ServiceFunctions(this, 'Functions', {
      declarations: SERVICE_FUNCTIONS,
      root: props.root,
      data,
      bucket,
      trailDigestBucket,
      environment,
      powertools: {
        serviceName: SERVICE_NAME,
        logLevel: stage.logLevel,
        metricsNamespace: metricsNamespace(stage.name),
      },
      logRetention,
      removalPolicy,
      ...(alarms === undefined ? {} : { alarms }),
    }));

    this.api = new HttpApi(this, 'HttpApi', {
      description: `File service (${stage.name})`,
      defaultIntegration: new HttpLambdaIntegration('Fallback', functions.get(FALLBACK_FUNCTION)),
      createDefaultStage: false,
      corsPreflight: apiCorsPreflight(stage),
    });
    issuer = stage.realtimeIssuer ?? apiDomainUrl(stage) ?? this.api.apiEndpoint;
    alarms?.watchApi(this.api);
    const defaultStage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: stage.apiRateLimit, burstLimit: stage.apiBurstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(
          new LogGroup(this, 'ApiAccessLogs', { retention: logRetention, removalPolicy }),
        ),
        format: ACCESS_LOG,
      },
    });
    mapApiDomain(this, stage, this.api, defaultStage);
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "The $default route answers unmatched requests with FastAPI's 404/405/redirect and reads no data",
    });

    new RealtimeKeys(this, 'RealtimeKeys', {
      initializer: functions.get(initRealtimeKeysFunction),
      readers: functions.granted('realtimeKeys', 'read'),
      secret: data.realtimeKeys,
      logRetention,
      removalPolicy,
    });
    new HttpRoutes(this, 'Routes', {
      api: this.api,
      authorizer: new HttpJwtAuthorizer('Jwt', stage.jwtIssuer, {
        jwtAudience: [...stage.jwtAudience],
        identitySource: ['$request.header.Authorization'],
      }),
      routes: API_ROUTES,
      functions: functions.all,
    });
    new UploadFinalizer(this, 'UploadFinalizer', {
      finalizer: functions.get(finalizeDirectUploadFunction),
      bucket,
      failures: data.uploadEventFailures,
    });
    if (scanEventFailures !== undefined) {
      new ScanVerdicts(this, 'MalwareScanVerdicts', {
        verdicts: functions.get(recordScanVerdictFunction),
        bucketName: bucket.bucketName,
        failures: scanEventFailures,
      });
    }
    new NotificationWorker(this, 'NotificationWorker', {
      worker: functions.get(deliverNotificationFunction),
      queue: data.notificationQueue,
    });
    new AccessTrailSealer(this, 'AccessTrailSealer', {
      sealer: functions.get(sealAccessTrailFunction),
    });
    if (target !== undefined) postAlarmsToChat(target, stage, functions.get(postAlarmFunction));
    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
    // Functions have no fixed names; the operator CLI and `aws lambda invoke` read these.
    for (const [functionId, fn] of functions.all) {
      new CfnOutput(this, functionNameOutput(functionId), { value: fn.functionName });
    }

    const { dashboard } = new ServiceDashboard(this, 'Dashboard', {
      stageName: stage.name,
      api: this.api,
      functions: functions.all,
      table: data.table,
      notificationQueue: data.notificationQueue,
      deadLetterQueues: new Map([
        ['Notifications', data.notificationDeadLetters],
        ['Upload events', data.uploadEventFailures],
        ...(scanEventFailures === undefined ? [] : ([['Scan events', scanEventFailures]] as const)),
      ]),
      metricsNamespace: metricsNamespace(stage.name),
    });
    new CfnOutput(this, 'DashboardUrl', {
      description: "The stage's CloudWatch dashboard",
      value: `https://console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards/dashboard/${dashboard.dashboardName}`,
    });
    this.acknowledgeBucketNotificationsHandler();
  }

  /** CDK's singleton that writes the bucket's notification configuration at deploy time. */
  private acknowledgeBucketNotificationsHandler(): void {
    const handler = this.node.children.find((child) =>
      child.node.id.startsWith('BucketNotificationsHandler'),
    );
    if (handler === undefined) return;
    Validations.of(handler).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's singleton that writes the bucket's notification configuration at deploy time; it runs only then",
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 's3:PutBucketNotification is granted by CDK on * for its deploy-time handler',
      },
    );
  }
}
