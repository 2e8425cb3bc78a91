import {
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AttributeType, Billing, type ITableV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectLockRetention,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import {
  TRAIL_EXPIRY_ATTRIBUTE,
  TRAIL_INDEXES,
  TRAIL_KEY,
} from '#shared/access-trail/adapters/access-entry-item.ts';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  DIRECT_UPLOAD_OBJECT_PREFIX,
  EXPIRY_ATTRIBUTE,
  FILE_CREATED_ATTRIBUTE,
  FILES_BY_CREATION_INDEX,
  PARTITION_KEY,
  SORT_KEY,
} from '#shared/storage/keys.ts';
import {
  DELIVERY_ATTEMPTS,
  REDRIVE_SLACK,
  WORKER_TIMEOUT_SECONDS,
} from '#shared/notifications/delivery-rules.ts';
import { DATA_OUTPUTS, type StageConfig } from '../stages.ts';
import { addApiDomain } from './api-domain.ts';
import { bucketCors } from './cors.ts';
import { MalwareScanning } from './malware-scanning.ts';

/** What the API stack needs of the data stack: passed by interface, granted per function. */
export interface ServiceData {
  readonly table: ITableV2;
  /** The access trail: functions only put entries in it (docs/security.md). */
  readonly trailTable: ITableV2;
  /** Its sealed digests, each locked for the retention: the sealer adds to them. */
  readonly trailDigestBucket: IBucket;
  readonly bucket: IBucket;
  /** Submission notifications waiting for the worker, and those it gave up on. */
  readonly notificationQueue: IQueue;
  readonly notificationDeadLetters: IQueue;
  /** Object-created events the finalizer failed on after Lambda's own retries. */
  readonly uploadEventFailures: IQueue;
  /** The ES256 key set that signs realtime tokens. */
  readonly realtimeKeys: ISecret;
  /** The chat channel's incoming-webhook URL. */
  readonly chatWebhook: ISecret;
  /**
   * Scan-result events the verdict function failed on after Lambda's own retries; only with
   * the stage's malwareScanning on.
   */
  readonly scanEventFailures?: IQueue;
}

export interface DataStackProps extends StackProps {
  readonly stage: StageConfig;
}

/**
 * The stage's state: the table, the bucket, the queues and the secrets (and the API's custom
 * domain, when the stage has one). It changes rarely and, in production, outlives its stack;
 * the API stack can be destroyed and redeployed around it.
 */
export class DataStack extends Stack implements ServiceData {
  readonly table: TableV2;
  readonly trailTable: TableV2;
  readonly trailDigestBucket: Bucket;
  readonly bucket: Bucket;
  readonly notificationQueue: Queue;
  readonly notificationDeadLetters: Queue;
  readonly uploadEventFailures: Queue;
  readonly realtimeKeys: Secret;
  readonly chatWebhook: Secret;
  readonly scanEventFailures?: Queue;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const { stage } = props;
    const removalPolicy = stage.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      // Lists page newest first, strongly consistent; a local index exists only from the
      // table's creation (docs/adr/0006-files-by-creation-index.md).
      localSecondaryIndexes: [
        {
          indexName: FILES_BY_CREATION_INDEX,
          sortKey: { name: FILE_CREATED_ATTRIBUTE, type: AttributeType.STRING },
        },
      ],
      billing: Billing.onDemand(),
      // Pending direct uploads, notifications and idempotency records expire on their own.
      timeToLiveAttribute: EXPIRY_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: stage.retainData,
      removalPolicy,
    });

    // The access trail, a table of its own (docs/data-model.md): both its indexes
    // come with its creation (CloudFormation adds one GSI to a table per update), grants on
    // it are exact, and its retention is not the service data's. Kept as the table is.
    this.trailTable = new TableV2(this, 'AccessTrailTable', {
      partitionKey: { name: TRAIL_KEY.partition, type: AttributeType.STRING },
      sortKey: { name: TRAIL_KEY.sort, type: AttributeType.STRING },
      globalSecondaryIndexes: Object.entries(TRAIL_INDEXES).map(([indexName, key]) => ({
        indexName,
        partitionKey: { name: key.partition, type: AttributeType.STRING },
        sortKey: { name: key.sort, type: AttributeType.STRING },
      })),
      billing: Billing.onDemand(),
      // Entries expire after the stage's accessTrailRetentionDays.
      timeToLiveAttribute: TRAIL_EXPIRY_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: stage.retainData,
      removalPolicy,
    });

    const accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // Server access logs can only be delivered to SSE-S3 buckets.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(stage.logRetentionDays) }],
      // Kept on every stage: S3 delivers logs late, so emptying it as the stack goes races
      // the last deliveries and fails the delete. Its lifecycle empties it instead.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'files/',
      // A deleted or replaced object stays recoverable for a while, then goes for good.
      versioned: true,
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(stage.noncurrentVersionDays),
          expiredObjectDeleteMarker: true,
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          // A form's bytes live here only until completion copies or refuses them (the
          // finalizer deletes them then); what a failed delete leaves goes after the
          // pending upload's own record (15 minutes and a day) has expired. Deleted ones
          // are copies (or refused), so their old versions need not wait out the bucket's.
          prefix: DIRECT_UPLOAD_OBJECT_PREFIX,
          expiration: Duration.days(2),
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
      // Pages on the stage's allowed origins POST direct uploads and fetch download links;
      // with no origins the bucket has no CORS rule at all.
      cors: bucketCors(stage),
      removalPolicy,
      autoDeleteObjects: !stage.retainData,
    });

    // The access trail's digests (docs/security.md): each locked in compliance mode for the
    // retention, so that nobody, the account's root included, can change or delete one before
    // it ends; a put that could replace one is refused. Locked objects outlive any delete, so
    // every stage keeps the bucket when its stack goes, rather than fail to empty it.
    this.trailDigestBucket = new Bucket(this, 'AccessTrailDigestBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(
        Duration.days(stage.accessTrailRetentionDays),
      ),
      // Who read a digest, and when, beside the files' own log.
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'access-trail-digests/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // The lock keeps each version; these keep a reader from seeing another. S3's conditional
    // writes, enforced: a put without If-None-Match could write a new version over a digest.
    // And a delete (without a version id, which the lock allows) would hide one behind a
    // delete marker, and the next seal would write its seq again.
    for (const [sid, action, conditions] of [
      ['DigestsNeverReplaced', 's3:PutObject', { Null: { 's3:if-none-match': 'true' } }],
      ['DigestsNeverDeleted', 's3:DeleteObject', undefined],
    ] as const) {
      this.trailDigestBucket.addToResourcePolicy(
        new PolicyStatement({
          sid,
          effect: Effect.DENY,
          principals: [new AnyPrincipal()],
          actions: [action],
          resources: [this.trailDigestBucket.arnForObjects('*')],
          ...(conditions === undefined ? {} : { conditions }),
        }),
      );
    }

    if (stage.malwareScanning === 'on') {
      const scanning = new MalwareScanning(this, 'MalwareScanning', {
        bucket: this.bucket,
        removalPolicy,
      });
      this.scanEventFailures = scanning.scanEventFailures;
      // `admin scan release|rescan` assumes it; operators read the failed events here.
      new CfnOutput(this, DATA_OUTPUTS.heldFileReleaserRoleArn, {
        value: scanning.releaserRole.roleArn,
      });
      new CfnOutput(this, DATA_OUTPUTS.scanEventFailuresQueueUrl, {
        value: scanning.scanEventFailures.queueUrl,
      });
    }

    // Submission notifications: the notify function queues each; the worker posts it, and
    // retries through the queue. Messages it gives up on, and any a crashing worker leaves
    // behind, rest in the dead-letter queue.
    this.notificationDeadLetters = new Queue(this, 'NotificationDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    this.notificationQueue = new Queue(this, 'Notifications', {
      // AWS's advice for a Lambda event source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(WORKER_TIMEOUT_SECONDS * 6),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: {
        queue: this.notificationDeadLetters,
        maxReceiveCount: DELIVERY_ATTEMPTS + REDRIVE_SLACK,
      },
      removalPolicy,
    });
    this.uploadEventFailures = new Queue(this, 'UploadEventFailures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    Validations.of(this.uploadEventFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "The finalizer's on-failure destination: it is itself where failed events rest, for an operator to read",
    });

    this.realtimeKeys = new Secret(this, 'RealtimeSigningKeys', {
      description: 'ES256 key set that signs realtime-collaboration tokens',
      removalPolicy,
    });
    Validations.of(this.realtimeKeys).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by the operator CLI (npm run admin -- realtime-key rotate), which publishes a new key before it signs; a Secrets Manager rotation Lambda would sign with a key verifiers have not fetched yet',
    });
    this.chatWebhook = new Secret(this, 'ChatWebhookUrl', {
      description: "The chat channel's incoming-webhook URL (Slack-compatible)",
      removalPolicy,
    });
    Validations.of(this.chatWebhook).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A webhook URL is issued by the chat workspace; no Lambda can mint a new one, so an operator replaces it there and here',
    });

    // Not data, but it must outlive the API stack as the data does: the API's custom domain.
    addApiDomain(this, stage);

    // The operator CLI (`npm run admin -- --stage <name>`) finds the stage's data by these.
    new CfnOutput(this, DATA_OUTPUTS.tableName, { value: this.table.tableName });
    new CfnOutput(this, DATA_OUTPUTS.trailTableName, { value: this.trailTable.tableName });
    new CfnOutput(this, DATA_OUTPUTS.trailRetentionDays, {
      value: String(stage.accessTrailRetentionDays),
    });
    new CfnOutput(this, DATA_OUTPUTS.trailDigestBucketName, {
      value: this.trailDigestBucket.bucketName,
    });
    new CfnOutput(this, DATA_OUTPUTS.bucketName, { value: this.bucket.bucketName });
    new CfnOutput(this, DATA_OUTPUTS.realtimeKeysSecretArn, {
      value: this.realtimeKeys.secretArn,
    });
    // Where operators put the chat channel's webhook URL, and find messages set aside.
    new CfnOutput(this, 'ChatWebhookSecretArn', { value: this.chatWebhook.secretArn });
    new CfnOutput(this, 'NotificationDeadLetterQueueUrl', {
      value: this.notificationDeadLetters.queueUrl,
    });
    // A redrive names it: the worker puts messages in the DLQ itself, so SQS knows no source.
    new CfnOutput(this, 'NotificationQueueArn', { value: this.notificationQueue.queueArn });
    new CfnOutput(this, 'UploadEventFailuresQueueUrl', {
      value: this.uploadEventFailures.queueUrl,
    });
  }
}
