import { join } from 'node:path';
import {
  CfnOutput,
  CustomResource,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  EventType,
  HttpMethods,
} from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import type { Construct } from 'constructs';
import { API_ROUTES, EVENT_FUNCTIONS, FALLBACK_ROUTE } from '#shared/api/routes.ts';
import { EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY } from '#shared/data/keys.ts';
import {
  DELIVERY_ATTEMPTS,
  REDRIVE_SLACK,
  WORKER_TIMEOUT_SECONDS,
} from '#shared/notifications/delivery-rules.ts';
import { ApiFunction } from '../constructs/api-function.ts';
import type { StageConfig } from '../stages.ts';

export interface FileServiceStackProps extends StackProps {
  readonly stage: StageConfig;
  /** The repository root, where route entries start. */
  readonly root: string;
}

/**
 * The service on AWS: the table, the bucket, and an HTTP API that routes each entry of
 * API_ROUTES to the handler module the local stage runs for it.
 */
export class FileServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: FileServiceStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const removalPolicy = stage.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    const table = new TableV2(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      // Pending direct uploads and idempotency records expire on their own.
      timeToLiveAttribute: EXPIRY_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: stage.retainData,
      removalPolicy,
    });
    const bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy,
      autoDeleteObjects: !stage.retainData,
      // Browsers POST direct uploads to the bucket and follow download links to it; the
      // signature, not the origin, is what admits a request.
      cors: [
        {
          allowedMethods: [HttpMethods.POST, HttpMethods.GET],
          allowedOrigins: ['*'],
          allowedHeaders: ['*'],
          maxAge: 3600,
        },
      ],
    });
    const userObjects = 'users/*';
    const dealObjects = 'groups/*';

    const environment = {
      STAGE: stage.name,
      TABLE_NAME: table.tableName,
      BUCKET_NAME: bucket.bucketName,
      USER_ID_CLAIM: stage.userIdClaim,
      POWERTOOLS_SERVICE_NAME: 'file-service',
      POWERTOOLS_LOG_LEVEL: stage.logLevel,
    };
    const makeFunction = (
      id: string,
      entry: string,
      extra: Record<string, string> = {},
      timeout?: Duration,
    ): IFunction =>
      new ApiFunction(this, id, {
        entry: join(props.root, entry),
        environment: { ...environment, ...extra },
        removalPolicy,
        ...(timeout === undefined ? {} : { timeout }),
      }).function;

    // Submission notifications: the notify route records each one and queues it; a worker
    // posts its one chat message to the webhook whose URL the secret holds, retrying through
    // the queue. Messages it gives up on, and any a crashing worker leaves, rest in the DLQ.
    const notificationDeadLetters = new Queue(this, 'NotificationDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    const workerTimeout = Duration.seconds(WORKER_TIMEOUT_SECONDS);
    const notificationQueue = new Queue(this, 'Notifications', {
      // AWS's advice for a Lambda event source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(workerTimeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: {
        queue: notificationDeadLetters,
        maxReceiveCount: DELIVERY_ATTEMPTS + REDRIVE_SLACK,
      },
      removalPolicy,
    });
    const chatWebhook = new Secret(this, 'ChatWebhookUrl', {
      description: "The chat channel's incoming-webhook URL (Slack-compatible)",
      removalPolicy,
    });
    const { deliverNotification } = EVENT_FUNCTIONS;
    const notificationWorker = makeFunction(
      deliverNotification.functionId,
      deliverNotification.entry,
      {
        NOTIFY_QUEUE_URL: notificationQueue.queueUrl,
        NOTIFY_DLQ_URL: notificationDeadLetters.queueUrl,
        CHAT_WEBHOOK_SECRET_ARN: chatWebhook.secretArn,
      },
      workerTimeout,
    );
    // The event source grants receive, delete and ChangeMessageVisibility on the queue.
    notificationWorker.addEventSource(
      new SqsEventSource(notificationQueue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // Slack takes about one message a second a webhook; the worker posts one at a time.
        maxConcurrency: 2,
      }),
    );
    table.grant(notificationWorker, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    chatWebhook.grantRead(notificationWorker);
    notificationDeadLetters.grantSendMessages(notificationWorker);

    // Realtime tokens are signed with ES256 keys kept in one secret, which a custom resource
    // fills with a first key at deploy time; the operator CLI rotates them.
    const realtimeKeys = new Secret(this, 'RealtimeSigningKeys', {
      description: 'ES256 key set that signs realtime-collaboration tokens',
      removalPolicy,
    });
    const keysEnvironment = { REALTIME_KEYS_SECRET_ARN: realtimeKeys.secretArn };
    const { initRealtimeKeys } = EVENT_FUNCTIONS;
    const keysInit = makeFunction(
      initRealtimeKeys.functionId,
      initRealtimeKeys.entry,
      keysEnvironment,
    );
    realtimeKeys.grantRead(keysInit);
    realtimeKeys.grantWrite(keysInit);
    const keysReady = new CustomResource(this, 'RealtimeKeys', {
      serviceToken: new Provider(this, 'RealtimeKeysProvider', { onEventHandler: keysInit })
        .serviceToken,
      properties: { SecretArn: realtimeKeys.secretArn },
    });

    // Each function gets only what its route uses.
    const grants: Readonly<Record<string, (fn: IFunction) => void>> = {
      ListUserFiles: (fn) => table.grantReadData(fn),
      UploadUserFile: (fn) => {
        table.grantReadWriteData(fn);
        bucket.grantPut(fn, userObjects);
        bucket.grantDelete(fn, userObjects);
      },
      // The signed POST form carries this function's authority to put the object.
      StartDirectUpload: (fn) => {
        table.grantReadWriteData(fn);
        bucket.grantPut(fn, userObjects);
      },
      CompleteDirectUpload: (fn) => {
        table.grantReadWriteData(fn);
        bucket.grantRead(fn, userObjects);
        bucket.grantDelete(fn, userObjects);
      },
      DownloadUserFile: (fn) => {
        table.grantReadData(fn);
        bucket.grantRead(fn, userObjects);
      },
      // Deal files: one batch read of membership, deal and file; then one transaction that
      // checks the membership and the deal (ConditionCheckItem) as it writes the file.
      ListDealFiles: (fn) => table.grant(fn, 'dynamodb:BatchGetItem', 'dynamodb:Query'),
      UpdateDealFile: (fn) =>
        table.grant(
          fn,
          'dynamodb:BatchGetItem',
          'dynamodb:ConditionCheckItem',
          'dynamodb:UpdateItem',
        ),
      GetRealtimeToken: (fn) => {
        table.grant(fn, 'dynamodb:BatchGetItem');
        realtimeKeys.grantRead(fn);
      },
      RealtimeJwks: (fn) => realtimeKeys.grantRead(fn),
      // One batch read of the files; the record (and its removal if queueing fails); the
      // idempotency records of an Idempotency-Key (put, get, update, delete).
      NotifySubmission: (fn) => {
        table.grant(
          fn,
          'dynamodb:BatchGetItem',
          'dynamodb:PutItem',
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
        );
        notificationQueue.grantSendMessages(fn);
      },
      GetNotification: (fn) => table.grant(fn, 'dynamodb:GetItem'),
      DeleteDealFile: (fn) => {
        table.grant(
          fn,
          'dynamodb:BatchGetItem',
          'dynamodb:ConditionCheckItem',
          'dynamodb:DeleteItem',
        );
        bucket.grantDelete(fn, dealObjects);
      },
    };

    const fallback = makeFunction(FALLBACK_ROUTE.functionId, FALLBACK_ROUTE.entry);
    const api = new HttpApi(this, 'HttpApi', {
      defaultIntegration: new HttpLambdaIntegration('Fallback', fallback),
    });
    const authorizer = new HttpJwtAuthorizer('Jwt', stage.jwtIssuer, {
      jwtAudience: [...stage.jwtAudiences],
      identitySource: ['$request.header.Authorization'],
    });
    const realtimeEnvironment = {
      ...keysEnvironment,
      REALTIME_ISSUER: stage.baseUrl ?? api.apiEndpoint,
      REALTIME_AUDIENCE: stage.realtimeAudience,
      REALTIME_TOKEN_SECONDS: String(stage.realtimeTokenSeconds),
    };
    const routeEnvironment: Readonly<Record<string, Record<string, string>>> = {
      NotifySubmission: { NOTIFY_QUEUE_URL: notificationQueue.queueUrl },
    };
    for (const route of API_ROUTES) {
      const realtime = route.path.startsWith('/api/v1/auth/');
      const fn = makeFunction(route.functionId, route.entry, {
        ...(realtime ? realtimeEnvironment : {}),
        ...routeEnvironment[route.functionId],
      });
      // No token before the first key exists.
      if (realtime) fn.node.addDependency(keysReady);
      const grant = grants[route.functionId];
      if (grant === undefined) throw new Error(`No grants declared for ${route.functionId}`);
      grant(fn);
      new HttpRoute(this, `${route.functionId}Route`, {
        httpApi: api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${route.functionId}Integration`, fn),
        ...(route.auth === 'jwt' ? { authorizer } : {}),
      });
    }
    const { finalizeDirectUpload } = EVENT_FUNCTIONS;
    const finalizer = makeFunction(finalizeDirectUpload.functionId, finalizeDirectUpload.entry);
    table.grantReadWriteData(finalizer);
    bucket.grantRead(finalizer, userObjects);
    bucket.grantDelete(finalizer, userObjects);
    bucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(finalizer), {
      prefix: finalizeDirectUpload.objectPrefix,
    });

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    // The operator CLI (`npm run admin -- --stage <name>`) finds the stage's data by these.
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName });
    new CfnOutput(this, 'RealtimeKeysSecretArn', { value: realtimeKeys.secretArn });
    // Where operators put the chat channel's webhook URL, and find messages set aside.
    new CfnOutput(this, 'ChatWebhookSecretArn', { value: chatWebhook.secretArn });
    new CfnOutput(this, 'NotificationDeadLetterQueueUrl', {
      value: notificationDeadLetters.queueUrl,
    });
    // A redrive names it: the worker puts messages in the DLQ itself, so SQS knows no source.
    new CfnOutput(this, 'NotificationQueueArn', { value: notificationQueue.queueArn });
  }
}
