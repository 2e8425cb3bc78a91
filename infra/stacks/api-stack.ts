import { join } from 'node:path';
import {
  Annotations,
  CfnOutput,
  CustomResource,
  Duration,
  Fn,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { type IGrantable, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket, EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { API_ROUTES, EVENT_FUNCTIONS, FALLBACK_ROUTE } from '#shared/api/routes.ts';
import {
  IDEMPOTENT_OPERATIONS,
  idempotencyPartition,
  DIRECT_UPLOAD_OBJECT_PREFIX,
  PARTITION_PATTERNS,
} from '#shared/data/keys.ts';
import { WORKER_TIMEOUT_SECONDS } from '#shared/notifications/delivery-rules.ts';
import {
  acknowledgeWildcard,
  grantItems,
  grantMissingObjectsAsNotFound,
  grantObjects,
  grantSecretValue,
  grantSend,
} from '../constructs/grants.ts';
import { ServiceAlarms } from '../constructs/service-alarms.ts';
import { ServiceFunction } from '../constructs/service-function.ts';
import { DATA_OUTPUTS, type StageConfig } from '../stages.ts';
import type { ServiceData } from './data-stack.ts';

export interface ApiStackProps extends StackProps {
  readonly stage: StageConfig;
  readonly data: ServiceData;
  /** The repository root, where function entries start. */
  readonly root: string;
}

/** Memory (MB, which also sets the CPU share) and timeout (s) of each function. */
interface Sizing {
  readonly memorySize: number;
  readonly timeout: number;
}

/**
 * Route functions answer within API Gateway's 30 s. Most wait on one or two DynamoDB calls
 * and need little memory; the multipart upload holds and parses a body of up to 6 MB, and
 * listings may build a response of several MB, so those get more (and with it more CPU).
 */
export const FUNCTION_SIZING: Readonly<Record<string, Sizing>> = {
  ListUserFiles: { memorySize: 1024, timeout: 20 },
  UploadUserFile: { memorySize: 1024, timeout: 29 },
  StartDirectUpload: { memorySize: 512, timeout: 10 },
  CompleteDirectUpload: { memorySize: 512, timeout: 10 },
  DownloadUserFile: { memorySize: 512, timeout: 10 },
  NotifySubmission: { memorySize: 512, timeout: 10 },
  GetNotification: { memorySize: 512, timeout: 10 },
  ListDealFiles: { memorySize: 1024, timeout: 20 },
  UpdateDealFile: { memorySize: 512, timeout: 10 },
  DeleteDealFile: { memorySize: 512, timeout: 10 },
  GetRealtimeToken: { memorySize: 512, timeout: 10 },
  RealtimeJwks: { memorySize: 256, timeout: 5 },
  // Builds the document once per cold start.
  OpenApiDocument: { memorySize: 512, timeout: 10 },
  // Gzips the 1.7 MB Swagger UI script once per container: CPU, hence the memory.
  ApiDocs: { memorySize: 1024, timeout: 10 },
  RouteNotFound: { memorySize: 256, timeout: 5 },
  FinalizeDirectUpload: { memorySize: 512, timeout: 30 },
  DeliverNotification: { memorySize: 512, timeout: WORKER_TIMEOUT_SECONDS },
  InitRealtimeKeys: { memorySize: 256, timeout: 60 },
};

/** The enum member for a retention the stage config has already checked. */
function retentionDays(days: number): RetentionDays {
  const member = Object.values(RetentionDays).find(
    (value): value is RetentionDays => typeof value === 'number' && value.valueOf() === days,
  );
  if (member === undefined) throw new Error(`${String(days)} days is no log retention`);
  return member;
}

/** The CDK custom-resource framework's own function: CDK builds its role. */
function acknowledgeFrameworkRole(provider: Provider, invokes: string): void {
  Validations.of(provider).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: "CDK's custom-resource framework function; it runs only during deployments",
  });
  acknowledgeWildcard(
    provider,
    invokes,
    'The framework may invoke any version of the one function it fronts',
  );
}

/**
 * The stage's compute: the HTTP API (the JWT authorizer on every contract route), one
 * function per route and per event, the S3-event finalizer, the notification worker, and
 * the alarms. It holds no data, so it can be destroyed and redeployed at will.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { stage, data } = props;
    const removalPolicy = stage.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logRetention = retentionDays(stage.logRetentionDays);
    const { users, groups, fileIds } = PARTITION_PATTERNS;
    const userFiles = 'users/';
    const dealFiles = 'groups/';
    const uploadForms = DIRECT_UPLOAD_OBJECT_PREFIX;
    // The bucket, named through the data stack's output: object grants then name it the same
    // way at synth as here, so their cdk-nag acknowledgements can name the resource.
    const dataStack = Stack.of(data.bucket);
    this.addStackDependency(dataStack, 'the functions read its bucket by its output');
    const bucket = Bucket.fromBucketAttributes(this, 'Files', {
      bucketName: Fn.getStackOutput(dataStack.stackName, DATA_OUTPUTS.bucketName),
    });

    const baseEnvironment = {
      STAGE: stage.name,
      TABLE_NAME: data.table.tableName,
      BUCKET_NAME: bucket.bucketName,
      USER_ID_CLAIM: stage.userIdClaim,
      POWERTOOLS_SERVICE_NAME: 'file-service',
      POWERTOOLS_LOG_LEVEL: stage.logLevel,
    };
    const makeFunction = (
      functionId: string,
      entry: string,
      description: string,
      environment: Record<string, string> = {},
      bundledFiles?: readonly string[],
    ): IFunction => {
      const sizing = FUNCTION_SIZING[functionId];
      if (sizing === undefined) throw new Error(`No sizing declared for ${functionId}`);
      return new ServiceFunction(this, functionId, {
        entry: join(props.root, entry),
        description,
        environment: { ...baseEnvironment, ...environment },
        memorySize: sizing.memorySize,
        timeout: Duration.seconds(sizing.timeout),
        logRetention,
        removalPolicy,
        ...(bundledFiles === undefined ? {} : { bundledFiles }),
      }).function;
    };

    const alarms = stage.alarms
      ? new ServiceAlarms(this, 'Alarms', { action: this.alarmAction(stage) })
      : undefined;
    const watch = (functionId: string, fn: IFunction) => alarms?.watchFunction(functionId, fn);
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

    // Realtime tokens are signed with ES256 keys kept in one secret, which a custom resource
    // fills with a first key at deploy time; the operator CLI rotates them.
    const keysEnvironment = { REALTIME_KEYS_SECRET_ARN: data.realtimeKeys.secretArn };
    const { initRealtimeKeys } = EVENT_FUNCTIONS;
    const keysInit = makeFunction(
      initRealtimeKeys.functionId,
      initRealtimeKeys.entry,
      'Fills the realtime signing-key secret with a first key at deploy time',
      keysEnvironment,
    );
    grantSecretValue(data.realtimeKeys, keysInit, 'read-write');
    const keysProvider = new Provider(this, 'RealtimeKeysProvider', {
      onEventHandler: keysInit,
      logGroup: new LogGroup(this, 'RealtimeKeysProviderLogs', {
        retention: logRetention,
        removalPolicy,
      }),
    });
    acknowledgeFrameworkRole(keysProvider, `${keysInit.functionArn}:*`);
    const keysReady = new CustomResource(this, 'RealtimeKeys', {
      serviceToken: keysProvider.serviceToken,
      properties: { SecretArn: data.realtimeKeys.secretArn },
    });

    // The complete route and the finalizer run the same completion, whichever comes first:
    // they read the form's bytes and copy them to the file's key (GetObject there, PutObject
    // here, and a HeadObject of what landed), delete them once recorded or refused, and
    // delete a copy no record names.
    const grantCompletion = (fn: IGrantable) => {
      grantItems(data.table, fn, ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], [users]);
      grantObjects(bucket, fn, ['s3:GetObject', 's3:DeleteObject'], uploadForms);
      grantObjects(bucket, fn, ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], userFiles);
      grantMissingObjectsAsNotFound(bucket, fn);
    };

    // Each function gets exactly the calls its code makes (see README, "Least privilege").
    const idempotency = (operation: keyof typeof IDEMPOTENT_OPERATIONS) =>
      idempotencyPartition(IDEMPOTENT_OPERATIONS[operation]);
    const grants: Readonly<Record<string, (fn: IGrantable) => void>> = {
      ListUserFiles: (fn) => grantItems(data.table, fn, ['Query'], [users]),
      // An id block, the object, the record (and the object's removal if the record fails);
      // with an Idempotency-Key, its record (put, read, settle, drop).
      UploadUserFile: (fn) => {
        grantItems(data.table, fn, ['UpdateItem'], [fileIds]);
        // GetItem: a record write whose answer was lost is read back before its bytes go.
        grantItems(data.table, fn, ['PutItem', 'GetItem'], [users]);
        grantItems(
          data.table,
          fn,
          ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
          [idempotency('uploadUserFile')],
        );
        grantObjects(bucket, fn, ['s3:PutObject', 's3:DeleteObject'], userFiles);
      },
      // The signed POST form carries this function's authority to put the object: under
      // uploads/ only, so no form can ever write a recorded file's bytes.
      StartDirectUpload: (fn) => {
        grantItems(data.table, fn, ['UpdateItem'], [fileIds]);
        grantItems(data.table, fn, ['PutItem'], [users]);
        grantObjects(bucket, fn, ['s3:PutObject'], uploadForms);
      },
      CompleteDirectUpload: (fn) => {
        grantCompletion(fn);
      },
      // The download link carries this function's authority to read the object.
      DownloadUserFile: (fn) => {
        grantItems(data.table, fn, ['GetItem'], [users]);
        grantObjects(bucket, fn, ['s3:GetObject'], userFiles);
      },
      // One batch read of the files; the record (and its removal if queueing fails); with an
      // Idempotency-Key, its record.
      NotifySubmission: (fn) => {
        // GetItem: a record write whose answer was lost is read back before it is queued.
        grantItems(data.table, fn, ['BatchGetItem', 'PutItem', 'GetItem', 'DeleteItem'], [users]);
        grantItems(
          data.table,
          fn,
          ['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'],
          [idempotency('notifySubmission')],
        );
        grantSend(data.notificationQueue, fn);
      },
      GetNotification: (fn) => grantItems(data.table, fn, ['GetItem'], [users]),
      // Deal files: one batch read of membership, deal and file; then one transaction that
      // checks the membership and the deal (ConditionCheckItem) as it writes the file.
      ListDealFiles: (fn) => grantItems(data.table, fn, ['BatchGetItem', 'Query'], [groups]),
      UpdateDealFile: (fn) =>
        grantItems(data.table, fn, ['BatchGetItem', 'ConditionCheckItem', 'UpdateItem'], [groups]),
      // The record comes back (PutItem, the deal checked) when the object will not go.
      DeleteDealFile: (fn) => {
        grantItems(
          data.table,
          fn,
          ['BatchGetItem', 'ConditionCheckItem', 'DeleteItem', 'PutItem'],
          [groups],
        );
        grantObjects(bucket, fn, ['s3:DeleteObject'], dealFiles);
      },
      GetRealtimeToken: (fn) => {
        grantItems(data.table, fn, ['BatchGetItem'], [groups]);
        grantSecretValue(data.realtimeKeys, fn, 'read');
      },
      RealtimeJwks: (fn) => grantSecretValue(data.realtimeKeys, fn, 'read'),
      OpenApiDocument: () => undefined,
      ApiDocs: () => undefined,
      RouteNotFound: () => undefined,
    };

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: logRetention,
      removalPolicy,
    });
    const fallback = makeFunction(
      FALLBACK_ROUTE.functionId,
      FALLBACK_ROUTE.entry,
      'Answers requests no route matches, as FastAPI does (404, 405, the slash redirect)',
    );
    watch(FALLBACK_ROUTE.functionId, fallback);
    this.api = new HttpApi(this, 'HttpApi', {
      description: `File service (${stage.name})`,
      defaultIntegration: new HttpLambdaIntegration('Fallback', fallback),
      createDefaultStage: false,
    });
    this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: stage.apiRateLimit, burstLimit: stage.apiBurstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
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
        ),
      },
    });
    const authorizer = new HttpJwtAuthorizer('Jwt', stage.jwtIssuer, {
      jwtAudience: [...stage.jwtAudience],
      identitySource: ['$request.header.Authorization'],
    });
    const realtimeEnvironment = {
      ...keysEnvironment,
      REALTIME_ISSUER: stage.baseUrl ?? this.api.apiEndpoint,
      REALTIME_AUDIENCE: stage.realtimeAudience,
      REALTIME_TOKEN_SECONDS: String(stage.realtimeTokenSeconds),
    };
    const routeEnvironment: Readonly<Record<string, Record<string, string>>> = {
      NotifySubmission: { NOTIFY_QUEUE_URL: data.notificationQueue.queueUrl },
    };
    // One function per functionId, however many routes it serves.
    const routeFunctions = new Map<string, { fn: IFunction; integration: HttpLambdaIntegration }>();
    const routeFunction = (route: (typeof API_ROUTES)[number]) => {
      const made = routeFunctions.get(route.functionId);
      if (made !== undefined) return made;
      const realtime = route.path.startsWith('/api/v1/auth/');
      const served = API_ROUTES.filter((r) => r.functionId === route.functionId);
      const fn = makeFunction(
        route.functionId,
        route.entry,
        served.map((r) => `${r.method} ${r.path}`).join(', '),
        { ...(realtime ? realtimeEnvironment : {}), ...routeEnvironment[route.functionId] },
        'bundledFiles' in route ? route.bundledFiles : undefined,
      );
      // No token before the first key exists.
      if (realtime) fn.node.addDependency(keysReady);
      const grant = grants[route.functionId];
      if (grant === undefined) throw new Error(`No grants declared for ${route.functionId}`);
      grant(fn);
      watch(route.functionId, fn);
      const integration = new HttpLambdaIntegration(`${route.functionId}Integration`, fn);
      const entry = { fn, integration };
      routeFunctions.set(route.functionId, entry);
      return entry;
    };
    for (const route of API_ROUTES) {
      const { integration } = routeFunction(route);
      const httpRoute = new HttpRoute(
        this,
        `${route.functionId}${'routeName' in route ? route.routeName : ''}Route`,
        {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
          integration,
          ...(route.auth === 'jwt' ? { authorizer } : {}),
        },
      );
      if (route.auth === 'none') {
        Validations.of(httpRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by design: ${route.publicBecause}`,
        });
      }
    }

    // The finalizer: S3 calls it asynchronously for objects created under uploads/. Events it
    // still fails on after Lambda's two retries go to a queue, not into the void.
    const { finalizeDirectUpload } = EVENT_FUNCTIONS;
    const finalizer = makeFunction(
      finalizeDirectUpload.functionId,
      finalizeDirectUpload.entry,
      'Completes a direct upload when its object lands in the bucket',
    );
    grantCompletion(finalizer);
    finalizer.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(data.uploadEventFailures),
    });
    // Notifications set on an imported bucket live in this stack: the data stack never
    // depends on the functions, so either stack deploys on its own.
    bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(finalizer), {
      prefix: finalizeDirectUpload.objectPrefix,
    });
    watch(finalizeDirectUpload.functionId, finalizer);

    // Submission notifications: the worker posts each queued one to the chat webhook whose
    // URL the secret holds, and retries through the queue.
    const { deliverNotification } = EVENT_FUNCTIONS;
    const worker = makeFunction(
      deliverNotification.functionId,
      deliverNotification.entry,
      'Posts each queued submission notification to the chat channel',
      {
        NOTIFY_QUEUE_URL: data.notificationQueue.queueUrl,
        NOTIFY_DLQ_URL: data.notificationDeadLetters.queueUrl,
        CHAT_WEBHOOK_SECRET_ARN: data.chatWebhook.secretArn,
      },
    );
    // The event source grants receive, delete and ChangeMessageVisibility on the queue.
    worker.addEventSource(
      new SqsEventSource(data.notificationQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // Slack takes about one message a second a webhook; the worker posts one at a time.
        maxConcurrency: 2,
      }),
    );
    grantItems(data.table, worker, ['GetItem', 'UpdateItem'], [users]);
    grantSecretValue(data.chatWebhook, worker, 'read');
    grantSend(data.notificationDeadLetters, worker);
    watch(deliverNotification.functionId, worker);

    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "The $default route answers unmatched requests with FastAPI's 404/405/redirect and reads no data",
    });
    const notificationsHandler = this.node.children.find((child) =>
      child.node.id.startsWith('BucketNotificationsHandler'),
    );
    if (notificationsHandler !== undefined) {
      Validations.of(notificationsHandler).acknowledge(
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

  /** The stage's alarm target: an existing SNS topic, or one of ours (with an email). */
  private alarmAction(stage: StageConfig): IAlarmAction {
    if (stage.alarmTopicArn !== undefined) {
      return new SnsAction(Topic.fromTopicArn(this, 'ExistingAlarmTopic', stage.alarmTopicArn));
    }
    const topic = new Topic(this, 'AlarmTopic', {
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
          StringEquals: { 'aws:SourceAccount': this.account },
          ArnLike: {
            'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:*`,
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
    new CfnOutput(this, 'AlarmTopicArn', { value: topic.topicArn });
    return new SnsAction(topic);
  }
}
