import { userInfo } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetFunctionConfigurationCommand, LambdaClient } from '@aws-sdk/client-lambda';
import * as z from 'zod';
import { s3ClientOptions } from '#infra/local/stage/stand-ins.ts';
import { OperatorRefusal } from './operator-refusal.ts';
import { readStackOutputs } from './stack-outputs.ts';
import { LOCAL_REGION } from '../local/stage/stand-ins.ts';
import { readStageCredentials, releaserCredentials } from '../local/stage-credentials.ts';
import { FileKeyStore } from '#infra/local/adapters/file-key-store.ts';
import { trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import type { RealtimeKeyStore } from '#shared/realtime/realtime-key-store.ts';
import { DOCUMENT_TRANSLATION } from '#shared/storage/aws/dynamodb.ts';
import {
  ENVIRONMENT,
  STORAGE_LIMIT_SETTINGS,
  type StorageLimitSetting,
} from '#shared/config/environment.ts';
import { storageLimitsOf } from '#shared/wiring/service-adapters.ts';
import type { StorageLimits } from '#shared/usage/usage.ts';
import type { AdapterSources } from '#shared/storage/adapter-sources.ts';
import { realtimeKeys } from '#shared/realtime/adapters/secrets-manager-key-store.ts';
import { realtimeKeysFile } from '../local/stage/local-stage.ts';
import { dataFolder, noStageRuns } from '../local/stage/data-folder.ts';
import { runningStage, type StageRecord, stageRecordPath } from '../local/stage/stage-lock.ts';
import {
  apiStackName,
  DATA_OUTPUTS,
  dataStackName,
  functionNameOutput,
  type StageName,
} from '../stages.ts';
import { getUserUsageFunction } from '#functions/get-user-usage/function.ts';

/** Where a command's data lives: one stage's table and bucket, and clients on them. */
export interface StageTarget {
  readonly stage: StageName;
  /** What the composition root builds the commands' adapters on. */
  readonly sources: Pick<
    AdapterSources,
    | 'TABLE_NAME'
    | 'TRAIL_TABLE_NAME'
    | 'ACCESS_TRAIL_RETENTION_DAYS'
    | 'TRAIL_DIGEST_BUCKET_NAME'
    | 'BUCKET_NAME'
    | 'dynamodb'
    | 'documents'
    | 's3'
  >;
  /** Where the stage keeps its realtime signing keys. */
  realtimeKeys(): RealtimeKeyStore & {
    /** How long after a rotation its key signs, unless told otherwise. */
    readonly rotationLeadSeconds: number;
    /** The least lead that is safe: running containers and JWKS caches must see the key. */
    readonly minimumLeadSeconds: number;
  };
  /** Whether the stage scans stored files for malware (its malwareScanning setting). */
  readonly scanning: boolean;
  /** Who runs the command, as the stage's credentials name them: kept with each release. */
  operator(): Promise<string>;
  /**
   * A client that may read and tag held objects: on AWS, as the data stack's releaser role,
   * the one principal besides GuardDuty's the bucket's policy lets do so.
   */
  releaser(): Promise<S3Client>;
  /**
   * The storage limits the stage holds each user to (its STORAGE_LIMIT_SETTINGS), and where
   * they were read; undefined limits when the stage does not say.
   */
  limits(): Promise<StageLimits>;
  close(): void;
}

interface StageLimits {
  readonly limits: StorageLimits | undefined;
  /** Where the limits come from, for the operator. */
  readonly from: string;
}

/** The storage-limit settings, as the operator reads where they came from. */
const LIMIT_NAMES = STORAGE_LIMIT_SETTINGS.join(' and ');

/** Each storage-limit setting, parsed by its own rule (the record has them without defaults). */
function storageLimitSettings(withDefaults: boolean) {
  const shape = {} as Record<StorageLimitSetting, z.ZodType<number>>;
  for (const name of STORAGE_LIMIT_SETTINGS) {
    shape[name] = withDefaults ? ENVIRONMENT[name] : ENVIRONMENT[name].unwrap();
  }
  return z.object(shape);
}

/** The limits a local stage's record names: those its functions run with. */
function recordedLimits(record: StageRecord | undefined, dataDir: string): StageLimits {
  const recorded = storageLimitSettings(false).safeParse(record?.storageLimits);
  if (!recorded.success) {
    return {
      limits: undefined,
      from: `unknown: the local stage's record (${stageRecordPath(dataDir)}) names no limits; restart \`npm start\``,
    };
  }
  return {
    limits: storageLimitsOf(recorded.data),
    from: `the local stage's ${LIMIT_NAMES}, as its record (${stageRecordPath(dataDir)}) names them`,
  };
}

/**
 * The limits a deployed stage's functions run with: the storage-limit variables of its usage
 * function, which the stage's settings of those names set at deploy (a variable it lacks reads
 * as the function would).
 */
async function deployedLimits(stage: StageName): Promise<StageLimits> {
  const stackName = apiStackName(stage);
  const outputs = await readStackOutputs(stackName, stage);
  const output = functionNameOutput(getUserUsageFunction.id);
  const functionName = outputs[output];
  if (functionName === undefined) {
    throw new OperatorRefusal(
      `stack ${stackName} has no ${output} output: deploy this version of the service first`,
    );
  }
  const lambda = new LambdaClient({});
  try {
    const { Environment } = await lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: functionName }),
    );
    return {
      limits: storageLimitsOf(storageLimitSettings(true).parse(Environment?.Variables ?? {})),
      from: `the ${LIMIT_NAMES} of function ${functionName} (stack ${stackName}), as deployed`,
    };
  } finally {
    lambda.destroy();
  }
}

/** The access trail's table on a stage, and how long its entries are kept there. */
interface TrailNames {
  readonly tableName: string;
  /** The stage's own: the entries the operator's commands write expire as its functions' do. */
  readonly retentionDays: number;
}

/**
 * The sources on one stage's tables and buckets, by these clients. A stage deployed before the
 * access trail, or before its digests, has none: a command that needs it is refused (the
 * message given instead of its names), the rest work.
 */
function sourcesOn(
  names: { readonly tableName: string; readonly bucket: string },
  trail: TrailNames | string,
  digestBucket: string | { readonly missing: string },
  dynamodb: DynamoDBClient,
  s3: S3Client,
): StageTarget['sources'] {
  const documents = DynamoDBDocumentClient.from(dynamodb, DOCUMENT_TRANSLATION);
  const trailNames = () => {
    if (typeof trail === 'string') throw new OperatorRefusal(trail);
    return trail;
  };
  return {
    TABLE_NAME: names.tableName,
    get TRAIL_TABLE_NAME() {
      return trailNames().tableName;
    },
    get ACCESS_TRAIL_RETENTION_DAYS() {
      return trailNames().retentionDays;
    },
    get TRAIL_DIGEST_BUCKET_NAME() {
      if (typeof digestBucket !== 'string') throw new OperatorRefusal(digestBucket.missing);
      return digestBucket;
    },
    BUCKET_NAME: names.bucket,
    dynamodb: () => dynamodb,
    documents: () => documents,
    s3: () => s3,
  };
}

/** The local stage that `npm start` runs on this data folder, found by its stage record. */
async function localTarget(env: NodeJS.ProcessEnv): Promise<StageTarget> {
  const dataDir = dataFolder(env);
  const record = await runningStage(dataDir);
  if (record === undefined) {
    throw new OperatorRefusal(
      `${noStageRuns(dataDir)} (or name a deployed stage with --stage development|production)`,
    );
  }
  // A stage started before the record named its table and bucket cannot be found by it.
  if (typeof record.tableName !== 'string' || typeof record.bucket !== 'string') {
    throw new OperatorRefusal(
      `the local stage on ${dataDir} was started by an older version: restart \`npm start\``,
    );
  }
  // The stage's own: its object store takes no others (DynamoDB Local takes any).
  const credentials = await readStageCredentials(dataDir);
  if (credentials === undefined) {
    throw new OperatorRefusal(`the local stage on ${dataDir} has no credentials.json: restart it`);
  }
  const local = { region: LOCAL_REGION, credentials };
  const dynamodb = new DynamoDBClient({ ...local, endpoint: record.dynamodbEndpoint });
  const s3 = new S3Client({ ...local, ...s3ClientOptions(record.s3Endpoint) });
  const releaser = new S3Client({
    ...local,
    ...s3ClientOptions(record.s3Endpoint),
    credentials: releaserCredentials(credentials),
  });
  return {
    stage: 'local',
    sources: sourcesOn(
      { tableName: record.tableName, bucket: record.bucket },
      // DynamoDB Local has the trail's table beside the table (ensureTable); a stage started
      // before its record named the retention runs on the setting's default.
      {
        tableName: trailTableNameOf(record.tableName),
        retentionDays: ENVIRONMENT.ACCESS_TRAIL_RETENTION_DAYS.parse(
          (record as Partial<StageRecord>).accessTrailRetentionDays,
        ),
      },
      // The local stage keeps the digests in its one bucket, unlocked.
      record.bucket,
      dynamodb,
      s3,
    ),
    scanning: record.malwareScanning,
    operator: () => Promise.resolve(`local:${userInfo().username}`),
    // The releaser's own key, which the local store's scan hold admits as a deployed
    // bucket's policy admits the releaser role.
    releaser: () => Promise.resolve(releaser),
    limits: () => Promise.resolve(recordedLimits(record, dataDir)),
    // The local stage reads the key file whenever it changes: a new key may sign at once.
    realtimeKeys: () =>
      Object.assign(new FileKeyStore(realtimeKeysFile(dataDir)), {
        rotationLeadSeconds: 0,
        minimumLeadSeconds: 0,
      }),
    close: () => {
      releaser.destroy();
      dynamodb.destroy();
      s3.destroy();
    },
  };
}

/**
 * A deployed stage, with the caller's ordinary AWS credentials and region: the stack's
 * outputs name its table and bucket, since neither has a fixed physical name.
 */
async function awsTarget(stage: StageName): Promise<StageTarget> {
  const name = dataStackName(stage);
  const outputs = await readStackOutputs(name, stage);
  const tableName = outputs[DATA_OUTPUTS.tableName];
  const bucket = outputs[DATA_OUTPUTS.bucketName];
  if (tableName === undefined || bucket === undefined) {
    throw new OperatorRefusal(
      `stack ${name} has no TableName and BucketName outputs: deploy this version of the service first`,
    );
  }
  const trailTableName = outputs[DATA_OUTPUTS.trailTableName];
  const retentionDays = Number(outputs[DATA_OUTPUTS.trailRetentionDays]);
  const trail =
    trailTableName === undefined || !Number.isInteger(retentionDays)
      ? `stack ${name} has no ${DATA_OUTPUTS.trailTableName} and ${DATA_OUTPUTS.trailRetentionDays} outputs: deploy this version of the service first`
      : { tableName: trailTableName, retentionDays };
  const digestBucket = outputs[DATA_OUTPUTS.trailDigestBucketName] ?? {
    missing: `stack ${name} has no ${DATA_OUTPUTS.trailDigestBucketName} output: deploy this version of the service first`,
  };
  const dynamodb = new DynamoDBClient({});
  const s3 = new S3Client({});
  const secrets = new SecretsManagerClient({});
  const sts = new STSClient({});
  const releaserRoleArn = outputs[DATA_OUTPUTS.heldFileReleaserRoleArn];
  let releaser: S3Client | undefined;
  return {
    stage,
    sources: sourcesOn({ tableName, bucket }, trail, digestBucket, dynamodb, s3),
    // The releaser role exists exactly when the stage scans (MalwareScanning in the data stack).
    scanning: releaserRoleArn !== undefined,
    operator: async () => (await sts.send(new GetCallerIdentityCommand({}))).Arn ?? 'unknown',
    limits: () => deployedLimits(stage),
    releaser: async () => {
      if (releaserRoleArn === undefined) {
        throw new OperatorRefusal(`stage ${stage} does not scan for malware: nothing is held`);
      }
      if (releaser !== undefined) return releaser;
      // One command runs well within an hour, the role's session.
      const { Credentials } = await sts.send(
        new AssumeRoleCommand({
          RoleArn: releaserRoleArn,
          RoleSessionName: 'admin-scan',
          DurationSeconds: 3600,
        }),
      );
      if (Credentials?.AccessKeyId === undefined || Credentials.SecretAccessKey === undefined) {
        throw new OperatorRefusal(`could not act as ${releaserRoleArn}: STS gave no credentials`);
      }
      releaser = new S3Client({
        credentials: {
          accessKeyId: Credentials.AccessKeyId,
          secretAccessKey: Credentials.SecretAccessKey,
          ...(Credentials.SessionToken === undefined
            ? {}
            : { sessionToken: Credentials.SessionToken }),
        },
      });
      return releaser;
    },
    realtimeKeys: () => {
      const secretArn = outputs[DATA_OUTPUTS.realtimeKeysSecretArn];
      if (secretArn === undefined) {
        throw new OperatorRefusal(
          `stack ${name} has no RealtimeKeysSecretArn output: deploy this version of the service first`,
        );
      }
      // Containers read the secret at most five minutes late, and verifiers may cache the
      // JWKS five minutes more: a new key signs only once both have seen it.
      const store = realtimeKeys({
        secretsManager: () => secrets,
        REALTIME_KEYS_SECRET_ARN: secretArn,
      });
      return Object.assign(store, {
        rotationLeadSeconds: 900,
        minimumLeadSeconds: 600,
      });
    },
    close: () => {
      releaser?.destroy();
      sts.destroy();
      secrets.destroy();
      dynamodb.destroy();
      s3.destroy();
    },
  };
}

export function stageTarget(stage: StageName, env: NodeJS.ProcessEnv): Promise<StageTarget> {
  return stage === 'local' ? localTarget(env) : awsTarget(stage);
}
