import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  API_ROUTES,
  FALLBACK_FUNCTION,
  FUNCTION_ENTRIES,
  FUNCTIONS_BY_ID,
  SERVICE_FUNCTIONS,
} from '#functions/service-functions.ts';
import { alarmTarget } from '#infra/stacks/alarm-action.ts';
import { addApiDomain } from '#infra/stacks/api-domain.ts';
import {
  functionNameOutput,
  STAGE_DEFAULTS,
  STAGE_NAMES,
  stageConfig,
  type StageName,
} from '#infra/stages.ts';
import {
  type FunctionDeclaration,
  RESOURCE_NAMES,
} from '#shared/functions/function-declaration.ts';
import { LOCAL_SDK_ENVIRONMENT } from '#infra/local/sam/sam-local-template.ts';
import { LOCAL_BUCKET, LOCAL_TABLE } from '#infra/local/stage/data-folder.ts';
import { BUSINESS_METRICS } from '#shared/observability/business-metrics.ts';
import { synthStage, type SynthesizedStage } from '#test/support/cdk-app.ts';
import {
  DASHBOARD_METRICS_PER_FUNCTION,
  DEPLOYED_ALARMS,
  WATCHED_FUNCTIONS,
} from '#infra/render/stage-cost.ts';
import { declaredCalls } from './declared-grants.ts';

const ISSUER = 'https://issuer.example/';
const DEVELOPMENT_ORIGINS = ['https://app.example.com', 'http://localhost:5173'];
const API_DOMAIN = 'files-dev.example.com';
const API_CERTIFICATE =
  'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-4b5a-6978-8091-a2b3c4d5e6f7';
const stages: Partial<Record<StageName, SynthesizedStage>> = {};
const stage = (name: StageName): SynthesizedStage => {
  const found = stages[name];
  if (found === undefined) throw new Error(`${name} not synthesized`);
  return found;
};

beforeAll(() => {
  stages.production = synthStage({ stage: 'production', jwtIssuer: ISSUER });
  stages.development = synthStage({
    stage: 'development',
    jwtIssuer: ISSUER,
    jwtAudience: 'api,web',
    alarmEmail: 'oncall@example.com',
    alarmChat: 'true',
    allowedOrigins: DEVELOPMENT_ORIGINS.join(','),
    notifyBurst: '3',
    notifyRatePerMinute: '0.5',
    maxFilesPerUser: '500',
    maxBytesPerUser: '1048576',
    apiDomainName: API_DOMAIN,
    apiCertificateArn: API_CERTIFICATE,
  });
  stages.local = synthStage({ stage: 'local' });
});

const ALL_FUNCTIONS: readonly string[] = SERVICE_FUNCTIONS.map((fn) => fn.id);

/** The SDK settings the local template adds to a function: those of each resource it reaches. */
const localSdkVariables = (declaration: FunctionDeclaration): string[] => [
  ...new Set(
    RESOURCE_NAMES.filter((r) => declaration[r] !== undefined).flatMap((r) =>
      Object.keys(LOCAL_SDK_ENVIRONMENT[r]),
    ),
  ),
];

const declarationOf = (id: string): FunctionDeclaration => {
  const found = FUNCTIONS_BY_ID.get(id as never);
  if (found === undefined) throw new Error(`No function ${id} declared`);
  return found;
};

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DependsOn?: string[];
  readonly DeletionPolicy?: string;
  readonly Metadata?: Record<string, unknown>;
}

function only(template: Template, type: string, prefix: string): [string, Resource] {
  // Sub-constructs prefix their children's logical ids (Routes…, UploadFinalizer…).
  const found = Object.entries(template.findResources(type)).filter(
    ([id]) => id.startsWith(prefix) || new RegExp(`^[A-Z][A-Za-z]*?${prefix}`).test(id),
  );
  expect(found.map(([id]) => id)).toHaveLength(1);
  return found[0] as [string, Resource];
}

const functionOf = (api: Template, id: string) =>
  only(api, 'AWS::Lambda::Function', `${id}Function`)[1];

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, string[]>>;
}

/** The statements of one function's role, X-Ray and its own log group aside. */
function grantsOf(api: Template, id: string): Statement[] {
  const [, policy] = only(api, 'AWS::IAM::Policy', `${id}RoleDefaultPolicy`);
  const document = policy.Properties.PolicyDocument as { Statement: Statement[] };
  return document.Statement.filter((s) => {
    const actions = [s.Action].flat();
    return !actions.every((a) => a.startsWith('xray:') || a.startsWith('logs:'));
  });
}

/** What a policy resource names, in words: `bucket/users/*`, `table`, `queue`, … */
function resourceLabel(resource: unknown): string {
  // CDK merges statements that differ only in their resources.
  if (Array.isArray(resource)) return resource.map(resourceLabel).sort().join(' + ');
  const json = JSON.stringify(resource);
  const suffix = /"(\/[^"]*)"\]\]\}$/.exec(json)?.[1] ?? '';
  const names: [string, string][] = [
    ['"OutputName":"AccessTrailDigestBucketName"', 'digests'],
    ['"OutputName":"BucketName"', 'bucket'],
    ['AccessTrailTable', 'trail'],
    ['Table', 'table'],
    ['NotificationDeadLetters', 'dead letters'],
    ['Notifications', 'queue'],
    ['UploadEventFailures', 'upload event failures'],
    ['ScanEventFailures', 'scan event failures'],
    ['RealtimeSigningKeys', 'realtime keys'],
    ['ChatWebhookUrl', 'webhook secret'],
  ];
  const name = names.find(([needle]) => json.includes(needle))?.[1] ?? json;
  return `${name}${suffix}`;
}

/** Each grant as `action… @ resource [partitions] {prefixes}`, sorted: what a reviewer reads. */
function describeGrants(api: Template, id: string): string[] {
  return grantsOf(api, id)
    .map((s) => `${[s.Action].flat().sort().join(' ')} @ ${scopeOf(s, s.Resource)}`)
    .sort();
}

/** Where a statement reaches: its resources, and the partitions or prefixes it names. */
function scopeOf(s: Statement, resource: unknown): string {
  const partitions = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
  const attributes = s.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'];
  const prefixes = s.Condition?.StringLike?.['s3:prefix'];
  return `${resourceLabel(resource)}${partitions === undefined ? '' : ` [${partitions.join(' ')}]`}${attributes === undefined ? '' : ` (${attributes.join(' ')})`}${prefixes === undefined ? '' : ` {${prefixes.join(' ')}}`}`;
}

/** Each call a function's role allows, one action on one resource a line, each once. */
function callsOf(api: Template, id: string): string[] {
  const calls = grantsOf(api, id).flatMap((s) =>
    [s.Action]
      .flat()
      .flatMap((action) =>
        [s.Resource].flat().map((resource) => `${action} @ ${scopeOf(s, resource)}`),
      ),
  );
  return [...new Set(calls)].sort();
}

describe('the HTTP API', () => {
  it('puts the JWT authorizer on every contract route and none on the public ones', () => {
    const { api } = stage('production');
    const authorizer = only(api, 'AWS::ApiGatewayV2::Authorizer', 'HttpApiJwt')[0];
    for (const route of API_ROUTES) {
      api.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${route.path}`,
        AuthorizationType: route.auth === 'jwt' ? 'JWT' : 'NONE',
        ...(route.auth === 'jwt' ? { AuthorizerId: { Ref: authorizer } } : {}),
      });
    }
    expect(API_ROUTES.filter((r) => r.auth === 'none').map((r) => r.path)).toEqual([
      '/api/v1/auth/realtime-jwks.json',
      '/openapi.json',
      '/docs',
      '/docs/{asset}',
    ]);
    api.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
    });
    expect(Object.keys(api.findResources('AWS::ApiGatewayV2::Route'))).toHaveLength(
      API_ROUTES.length + 1,
    );
  });

  it('deploys one function per declaration, one integration per function, its routes named under it', () => {
    const { api } = stage('production');
    const routeIds = Object.keys(api.findResources('AWS::ApiGatewayV2::Route'));
    // Routes/<function id>/<routeName, else method>: ids from the construct tree alone.
    expect(
      routeIds.filter((id) => id.startsWith('RoutesApiDocs')).map((id) => id.slice(6, -8)),
    ).toEqual(['ApiDocsPage', 'ApiDocsAsset']);
    expect(routeIds.filter((id) => id.startsWith('RoutesListUserFiles'))).toEqual([
      expect.stringMatching(/^RoutesListUserFilesGET[0-9A-F]{8}$/),
    ]);
    const functions = Object.keys(api.findResources('AWS::Lambda::Function'));
    expect(functions.filter((id) => id.startsWith('FunctionsApiDocsFunction'))).toHaveLength(1);
    const routed = new Set(API_ROUTES.map((route) => route.functionId));
    // + the fallback's, on the $default route.
    expect(Object.keys(api.findResources('AWS::ApiGatewayV2::Integration'))).toHaveLength(
      routed.size + 1,
    );
  });

  it("takes each stage's issuer and audiences on the Authorization header", () => {
    stage('development').api.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: ISSUER, Audience: ['api', 'web'] },
    });
    stage('local').api.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      JwtConfiguration: {
        Issuer: 'https://local-idp.file-service.invalid/',
        Audience: ['file-service-api'],
      },
    });
  });

  it('wires each route to its own function', () => {
    const { api } = stage('production');
    const integrations = api.findResources('AWS::ApiGatewayV2::Integration');
    for (const route of API_ROUTES) {
      const [, found] = Object.entries(api.findResources('AWS::ApiGatewayV2::Route')).find(
        ([, r]) => (r as Resource).Properties.RouteKey === `${route.method} ${route.path}`,
      ) as [string, Resource];
      const integrationId = /"Ref":"([^"]+)"/.exec(JSON.stringify(found.Properties.Target))?.[1];
      expect(JSON.stringify(integrations[integrationId ?? ''])).toMatch(
        new RegExp(`"Functions${route.functionId}Function[0-9A-F]{8}"`),
      );
    }
  });

  it('throttles each stage and logs every request as JSON', () => {
    for (const name of ['production', 'development'] as const) {
      const { apiRateLimit, apiBurstLimit } = STAGE_DEFAULTS[name];
      stage(name).api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        DefaultRouteSettings: {
          ThrottlingRateLimit: apiRateLimit,
          ThrottlingBurstLimit: apiBurstLimit,
        },
        AccessLogSettings: {
          DestinationArn: Match.anyValue(),
          Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"'),
        },
      });
    }
  });
});

describe('the functions', () => {
  it('runs every function on Node.js 24, arm64, traced, logging JSON to a log group of its own', () => {
    for (const name of ['production', 'local'] as const) {
      const { api } = stage(name);
      for (const id of ALL_FUNCTIONS) {
        const { Properties } = functionOf(api, id);
        const { sizing } = declarationOf(id);
        expect(Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          TracingConfig: { Mode: 'Active' },
          MemorySize: sizing.memoryMb,
          Timeout: sizing.timeoutSeconds,
          LoggingConfig: {
            LogFormat: 'JSON',
            LogGroup: { Ref: expect.stringMatching(`^[A-Za-z]*?${id}Logs`) as unknown },
          },
          Environment: {
            Variables: expect.objectContaining({
              NODE_OPTIONS: '--enable-source-maps',
            }) as unknown,
          },
        });
      }
    }
  });

  it('keeps route functions within API Gateway’s 30 s', () => {
    for (const id of [...API_ROUTES.map((route) => route.functionId), FALLBACK_FUNCTION.id]) {
      expect(declarationOf(id).sizing.timeoutSeconds, id).toBeLessThan(30);
    }
  });

  it("keeps logs for the stage's retention, and in production after the stack goes", () => {
    const expected = {
      production: [90, 'Retain'],
      development: [14, 'Delete'],
      local: [3, 'Delete'],
    };
    for (const [name, [days, policy]] of Object.entries(expected)) {
      const groups = Object.values(
        stage(name as StageName).api.findResources('AWS::Logs::LogGroup'),
      );
      expect(groups.length).toBe(ALL_FUNCTIONS.length + 2); // + API access logs, CR framework
      for (const group of groups as Resource[]) {
        expect(group.Properties.RetentionInDays).toBe(days);
        expect(group.DeletionPolicy).toBe(policy);
      }
    }
  });

  it('sets the log level per stage', () => {
    expect(
      (
        functionOf(stage('production').api, 'ListUserFiles').Properties.Environment as {
          Variables: Record<string, string>;
        }
      ).Variables.POWERTOOLS_LOG_LEVEL,
    ).toBe('INFO');
    expect(
      (
        functionOf(stage('development').api, 'ListUserFiles').Properties.Environment as {
          Variables: Record<string, string>;
        }
      ).Variables.POWERTOOLS_LOG_LEVEL,
    ).toBe('DEBUG');
  });

  it('gives no role an AWS managed policy, and no resource a fixed name', () => {
    const { api, data } = stage('production');
    for (const [id, role] of Object.entries(api.findResources('AWS::IAM::Role'))) {
      if (id.startsWith('BucketNotificationsHandler') || id.startsWith('RealtimeKeysProvider')) {
        continue; // CDK's deploy-time helpers, acknowledged with reasons
      }
      expect((role as Resource).Properties.ManagedPolicyArns).toBeUndefined();
    }
    const named =
      /^(BucketName|TableName|QueueName|FunctionName|RoleName|LogGroupName|Name|TopicName)$/;
    for (const template of [api, data]) {
      for (const resource of Object.values(
        template.toJSON().Resources as Record<string, Resource>,
      )) {
        // An API's and an authorizer's names are labels within the account's API list.
        if (resource.Type.startsWith('AWS::ApiGatewayV2::')) continue;
        // A reference to another resource's name is fine; a name written here is not.
        const literal = Object.entries(resource.Properties).filter(
          ([key, value]) => named.test(key) && typeof value === 'string',
        );
        expect(literal).toEqual([]);
      }
    }
  });
});

describe('least privilege: each function may make exactly the calls its code makes', () => {
  /** Grants CDK adds where the stack wires a function, beyond what it declares. */
  const wired: Readonly<Record<string, readonly string[]>> = {
    // The finalizer's on-failure destination.
    FinalizeDirectUpload: [
      'sqs:GetQueueAttributes @ upload event failures',
      'sqs:GetQueueUrl @ upload event failures',
      'sqs:SendMessage @ upload event failures',
    ],
    // The verdict function's on-failure destination (malwareScanning on, as in production).
    RecordScanVerdict: [
      'sqs:GetQueueAttributes @ scan event failures',
      'sqs:GetQueueUrl @ scan event failures',
      'sqs:SendMessage @ scan event failures',
    ],
  };

  for (const fn of SERVICE_FUNCTIONS) {
    it(`${fn.id}: the calls its declaration grants, nothing else`, () => {
      expect(callsOf(stage('production').api, fn.id)).toEqual(
        [...declaredCalls(fn), ...(wired[fn.id] ?? [])].sort(),
      );
    });
  }

  it('lets the list functions read, and nothing more but a refusal’s entry', () => {
    const { api } = stage('production');
    expect(describeGrants(api, 'ListUserFiles')).toEqual([
      'dynamodb:Query @ table/index/FilesByCreation [USER#*]',
    ]);
    expect(describeGrants(api, 'ListDealFiles')).toEqual([
      'dynamodb:BatchGetItem @ table [GROUP#*]',
      // A non-member's refused list is recorded in the deal's trail: a put, nothing else there.
      'dynamodb:PutItem @ trail',
      'dynamodb:Query @ table/index/FilesByCreation [GROUP#*]',
    ]);
  });

  it("keeps the token functions off the bucket and the files: of users' items, keys alone", () => {
    const { api } = stage('production');
    expect(describeGrants(api, 'GetRealtimeToken')).toEqual([
      'dynamodb:BatchGetItem @ table [GROUP#*]',
      'dynamodb:GetItem @ table [USER#*] (PK SK)',
      // Its rooms' access-trail entries: a put on the trail's table, nothing else there.
      'dynamodb:PutItem @ trail',
      'secretsmanager:GetSecretValue @ realtime keys',
    ]);
    // IAM's attribute-level access: the call may name the keys alone, and select nothing else.
    const marker = grantsOf(api, 'GetRealtimeToken').find((s) => s.Action === 'dynamodb:GetItem');
    expect(marker?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK'] },
      StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
    });
    expect(describeGrants(api, 'RealtimeJwks')).toEqual([
      'secretsmanager:GetSecretValue @ realtime keys',
    ]);
  });

  it('lets a signed form write under uploads/ only, and a download link read users/ only', () => {
    const { api } = stage('production');
    const objects = (id: string) => describeGrants(api, id).filter((g) => g.startsWith('s3:'));
    // No form can reach a recorded file's key.
    expect(objects('StartDirectUpload')).toEqual([`s3:PutObject @ bucket/uploads/*`]);
    expect(objects('DownloadUserFile')).toEqual([`s3:GetObject @ bucket/users/*`]);
  });

  it('gives the public and fallback functions no grant at all', () => {
    const { api } = stage('production');
    for (const id of ['OpenApiDocument', 'ApiDocs', 'RouteNotFound']) {
      expect(describeGrants(api, id), id).toEqual([]);
    }
  });

  it('ties each variable naming a resource to a grant on it, and each grant to its variable', () => {
    const reaches: Readonly<Record<string, RegExp>> = {
      TABLE_NAME: /^dynamodb:\S+ @ table/,
      TRAIL_TABLE_NAME: /^dynamodb:\S+ @ trail/,
      TRAIL_DIGEST_BUCKET_NAME: /^s3:\S+ @ digests/,
      BUCKET_NAME: /^s3:\S+ @ bucket/,
      NOTIFY_QUEUE_URL: /^sqs:\S+ @ queue/,
      NOTIFY_DLQ_URL: /^sqs:\S+ @ dead letters/,
      REALTIME_KEYS_SECRET_ARN: /^secretsmanager:\S+ @ realtime keys/,
      CHAT_WEBHOOK_SECRET_ARN: /^secretsmanager:\S+ @ webhook secret/,
    };
    const { api } = stage('production');
    for (const id of ALL_FUNCTIONS) {
      const calls = callsOf(api, id).filter((call) => !/(upload|scan) event failures/.test(call));
      const { Variables } = functionOf(api, id).Properties.Environment as {
        Variables: Record<string, unknown>;
      };
      for (const [variable, pattern] of Object.entries(reaches)) {
        expect(variable in Variables, `${id} ${variable}`).toBe(
          calls.some((call) => pattern.test(call)),
        );
      }
    }
  });

  it('lets each role write to its own log group alone', () => {
    const { api } = stage('production');
    for (const id of ALL_FUNCTIONS) {
      const [, policy] = only(api, 'AWS::IAM::Policy', `${id}RoleDefaultPolicy`);
      const logs = (
        policy.Properties.PolicyDocument as { Statement: Statement[] }
      ).Statement.filter((s) => [s.Action].flat().some((a) => a.startsWith('logs:')));
      expect(logs).toEqual([
        expect.objectContaining({
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [expect.stringMatching(`^[A-Za-z]*?${id}Logs`), 'Arn'] },
        }),
      ]);
    }
  });

  it('grants * only to X-Ray', () => {
    const { api } = stage('production');
    for (const policy of Object.values(api.findResources('AWS::IAM::Policy')) as Resource[]) {
      for (const s of (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement) {
        if (s.Resource === '*') {
          expect(
            [s.Action]
              .flat()
              .every((a) => a.startsWith('xray:') || a.startsWith('s3:PutBucketNotification')),
          ).toBe(true);
        }
      }
    }
  });

  it('never grants a wildcard action, a scan, or the table without partitions', () => {
    const { api } = stage('production');
    const policies = JSON.stringify(api.findResources('AWS::IAM::Policy'));
    expect(policies).not.toMatch(/"(dynamodb|s3|sqs|secretsmanager):[A-Za-z]*\*"/);
    expect(policies).not.toContain('dynamodb:Scan');
    for (const id of ALL_FUNCTIONS) {
      for (const s of grantsOf(api, id)) {
        // The access trail's table is the trail alone: its grants are exact calls, no keys
        // (access-trail.test.ts holds them to PutItem and Query).
        const onTrail = resourceLabel(s.Resource).startsWith('trail');
        if (!onTrail && [s.Action].flat().some((a) => a.startsWith('dynamodb:'))) {
          expect(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']).toBeDefined();
        }
      }
    }
  });
});

describe('the data stack', () => {
  it('protects the table: point-in-time recovery always, deletion protection and retention in production', () => {
    const expected = {
      production: [true, 'Retain'],
      development: [false, 'Delete'],
      local: [false, 'Delete'],
    };
    for (const [name, [protectedTable, policy]] of Object.entries(expected)) {
      // The service's table; the access trail's, beside it, is held in access-trail.test.ts.
      const tables = stage(name as StageName).data.findResources('AWS::DynamoDB::GlobalTable');
      const table = Object.entries(tables).find(([id]) => id.startsWith('Table'))?.[1] as Resource;
      expect(table.DeletionPolicy).toBe(policy);
      expect(table.Properties.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.Properties.TimeToLiveSpecification).toEqual({
        AttributeName: 'expiration',
        Enabled: true,
      });
      const [replica] = table.Properties.Replicas as Record<string, unknown>[];
      expect(replica?.DeletionProtectionEnabled).toBe(protectedTable);
      expect(replica?.PointInTimeRecoverySpecification).toEqual({
        PointInTimeRecoveryEnabled: true,
      });
    }
  });

  it('protects the bucket: no public access, TLS only, encrypted, versioned with old versions expiring', () => {
    const days = { production: 30, development: 7, local: 1 };
    for (const [name, noncurrent] of Object.entries(days)) {
      const { data } = stage(name as StageName);
      const [id, bucket] = only(data, 'AWS::S3::Bucket', 'Files');
      expect(bucket.DeletionPolicy).toBe(name === 'production' ? 'Retain' : 'Delete');
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: {
          Rules: [
            expect.objectContaining({
              NoncurrentVersionExpiration: { NoncurrentDays: noncurrent },
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              ExpiredObjectDeleteMarker: true,
              Status: 'Enabled',
            }),
            // Forms' bytes the finalizer could not delete go once no upload can use them.
            {
              Prefix: 'uploads/',
              ExpirationInDays: 2,
              NoncurrentVersionExpiration: { NoncurrentDays: 1 },
              Status: 'Enabled',
            },
          ],
        },
        LoggingConfiguration: {
          DestinationBucketName: { Ref: expect.stringMatching(/^AccessLogs/) as unknown },
          LogFilePrefix: 'files/',
        },
        // Its CORS rules: test/infra/cors-configuration.test.ts.
      });
      data.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
      // The access-log bucket outlives every stack (late log deliveries would fail its delete).
      expect(only(data, 'AWS::S3::Bucket', 'AccessLogs')[1].DeletionPolicy).toBe('Retain');
      // Only stages that may destroy their data empty the bucket on the way out.
      expect(Object.keys(data.findResources('Custom::S3AutoDeleteObjects')).length > 0).toBe(
        name !== 'production',
      );
    }
  });

  it('wires the dead-letter queues: notifications after 15 receives, finalizer events after 2 retries', () => {
    const { data, api } = stage('production');
    const [deadLetters] = only(data, 'AWS::SQS::Queue', 'NotificationDeadLetters');
    data.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] },
        maxReceiveCount: 15,
      },
    });
    for (const queue of ['NotificationDeadLetters', 'UploadEventFailures', 'ScanEventFailures']) {
      expect(only(data, 'AWS::SQS::Queue', queue)[1].Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
    }
    api.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: only(api, 'AWS::Lambda::Function', 'FinalizeDirectUploadFunction')[0] },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      DestinationConfig: {
        OnFailure: {
          Destination: Match.objectLike({
            'Fn::GetStackOutput': Match.objectLike({ StackName: 'FileService-production' }),
          }),
        },
      },
    });
    // One message a worker, two workers: few in flight, so the fair queue picks who is next.
    api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: only(api, 'AWS::Lambda::Function', 'DeliverNotificationFunction')[0] },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it("admits the scan-result rule's dead letters by the rule's own ARN, in the queue's one policy, on every stage", () => {
    for (const name of STAGE_NAMES) {
      const { data, api } = stage(name);
      const outputs = data.toJSON().Outputs as Record<string, { Value: unknown }>;
      /** What a `Fn::GetStackOutput` of the data stack stands for there. */
      const dataValue = (reference: unknown) =>
        outputs[
          (reference as { 'Fn::GetStackOutput': { OutputName: string } })['Fn::GetStackOutput']
            .OutputName
        ]?.Value;
      const [queue] = only(data, 'AWS::SQS::Queue', 'MalwareScanningScanEventFailures');
      const [ruleId, rule] = only(api, 'AWS::Events::Rule', 'MalwareScanVerdictsRule');
      const deadLetters = (rule.Properties.Targets as { DeadLetterConfig: { Arn: unknown } }[])[0]
        ?.DeadLetterConfig.Arn;
      expect(dataValue(deadLetters), name).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
      const [, policy] = only(api, 'AWS::SQS::QueuePolicy', 'MalwareScanVerdictsDeadLetterPolicy');
      expect((policy.Properties.Queues as unknown[]).map(dataValue), name).toEqual([
        { Ref: queue },
      ]);
      expect(policy.Properties.PolicyDocument, name).toEqual({
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'TlsOnly',
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: 'sqs:*',
            Resource: deadLetters,
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          },
          {
            Sid: 'ScanResultRuleDeadLetters',
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Resource: deadLetters,
            // The rule's real ARN, whatever name CloudFormation gives it.
            Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
          },
        ],
      });
      // SQS keeps one policy a queue: none in the data stack to overwrite this one.
      const dataPolicies = Object.values(data.findResources('AWS::SQS::QueuePolicy'));
      expect(JSON.stringify(dataPolicies), name).not.toContain(queue);
    }
  });

  it('sends object-created events under uploads/ to the finalizer, from the API stack', () => {
    stage('production').api.hasResourceProperties('Custom::S3BucketNotifications', {
      Managed: false,
      NotificationConfiguration: {
        LambdaFunctionConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'uploads/' }] } },
          },
        ],
      },
    });
  });

  it('keeps the secrets and publishes what the operator CLI and the API stack read', () => {
    const { data, api } = stage('production');
    expect(Object.keys(data.findResources('AWS::SecretsManager::Secret'))).toHaveLength(2);
    for (const output of [
      'TableName',
      'BucketName',
      'RealtimeKeysSecretArn',
      'ChatWebhookSecretArn',
      'NotificationDeadLetterQueueUrl',
      'NotificationQueueArn',
      'UploadEventFailuresQueueUrl',
      'HeldFileReleaserRoleArn',
      'ScanEventFailuresQueueUrl',
    ]) {
      data.hasOutput(output, {});
    }
    api.hasOutput('ApiUrl', {});
    api.hasResourceProperties('AWS::CloudFormation::CustomResource', {
      SecretArn: Match.objectLike({ 'Fn::GetStackOutput': Match.anyValue() }),
    });
  });

  it('names every function in an output, for `aws lambda invoke`', () => {
    const { api } = stage('production');
    for (const functionId of FUNCTION_ENTRIES.keys()) {
      const [logicalId] = only(api, 'AWS::Lambda::Function', `${functionId}Function`);
      api.hasOutput(functionNameOutput(functionId), { Value: { Ref: logicalId } });
    }
  });

  it('tells the worker its webhook secret, never a URL', () => {
    const variables = (
      functionOf(stage('production').api, 'DeliverNotification').Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(['NOTIFY_QUEUE_URL', 'NOTIFY_DLQ_URL', 'CHAT_WEBHOOK_SECRET_ARN']),
    );
    expect(variables).not.toHaveProperty('CHAT_WEBHOOK_URL');
  });

  it('starts the realtime functions after the first signing key exists, with the stage’s token settings', () => {
    const variables = (id: string) =>
      (
        functionOf(stage('development').api, id).Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
    expect(variables('GetRealtimeToken')).toMatchObject({
      STAGE: 'development',
      REALTIME_AUDIENCE: 'realtime',
      REALTIME_TOKEN_SECONDS: '3600',
      REALTIME_ISSUER: expect.anything() as unknown,
      REALTIME_KEYS_SECRET_ARN: expect.anything() as unknown,
    });
    expect(variables('RealtimeJwks')).toMatchObject({
      REALTIME_KEYS_SECRET_ARN: expect.anything() as unknown,
    });
    for (const id of ['GetRealtimeToken', 'RealtimeJwks']) {
      const fn = functionOf(stage('development').api, id);
      expect(fn.DependsOn?.some((d) => d.startsWith('RealtimeKeys'))).toBe(true);
    }
  });

  it("sets the notify allowance from the stage's settings, and the channel's pace from its default", () => {
    const variables = (name: StageName, id: string) =>
      (
        functionOf(stage(name).api, id).Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
    for (const name of ['production', 'local'] as const) {
      expect(variables(name, 'NotifySubmission')).toMatchObject({
        NOTIFY_BURST: '5',
        NOTIFY_RATE_PER_MINUTE: '1',
      });
    }
    // Set with -c on the development synth above.
    expect(variables('development', 'NotifySubmission')).toMatchObject({
      NOTIFY_BURST: '3',
      NOTIFY_RATE_PER_MINUTE: '0.5',
    });
    for (const name of ['production', 'development', 'local'] as const) {
      expect(variables(name, 'DeliverNotification')).toMatchObject({ CHAT_POSTS_PER_SECOND: '1' });
    }
  });

  it("sets the per-user quotas from the stage's settings in every function that reads them", () => {
    // The variables' defaults, except in development, set with -c on its synth above.
    const quotas = {
      production: { MAX_FILES_PER_USER: '10000', MAX_BYTES_PER_USER: '10737418240' },
      development: { MAX_FILES_PER_USER: '500', MAX_BYTES_PER_USER: '1048576' },
      local: { MAX_FILES_PER_USER: '10000', MAX_BYTES_PER_USER: '10737418240' },
    } as const;
    for (const name of ['production', 'development', 'local'] as const) {
      for (const id of ALL_FUNCTIONS) {
        const { Variables } = functionOf(stage(name).api, id).Properties.Environment as {
          Variables: Record<string, unknown>;
        };
        for (const [variable, value] of Object.entries(quotas[name])) {
          if (variable in Variables) expect(Variables[variable], `${name} ${id}`).toBe(value);
        }
      }
    }
  });

  it('keeps the SAM parts out of the deployed templates: no parameters of ours, no SamResourceId', () => {
    for (const name of ['production', 'development'] as const) {
      const { api } = stage(name);
      expect(Object.keys((api.toJSON() as { Parameters?: object }).Parameters ?? {}), name).toEqual(
        ['BootstrapVersion'],
      );
      for (const id of ALL_FUNCTIONS) {
        expect(functionOf(api, id).Metadata ?? {}, `${name} ${id}`).not.toHaveProperty(
          'SamResourceId',
        );
      }
    }
  });

  it('gives each function exactly the variables it reads, and Powertools its own', () => {
    for (const name of ['production', 'development', 'local'] as const) {
      for (const id of ALL_FUNCTIONS) {
        const { Variables } = functionOf(stage(name).api, id).Properties.Environment as {
          Variables: Record<string, unknown>;
        };
        expect(Object.keys(Variables).sort(), `${name} ${id}`).toEqual(
          [
            ...declarationOf(id).variables,
            'POWERTOOLS_SERVICE_NAME',
            'POWERTOOLS_LOG_LEVEL',
            'POWERTOOLS_METRICS_NAMESPACE',
            'NODE_OPTIONS',
            // The local template also points the SDK at the stand-ins, for SAM CLI.
            ...(name === 'local' ? localSdkVariables(declarationOf(id)) : []),
          ].sort(),
        );
      }
    }
  });
});

describe('the local template, for SAM CLI (issue 35)', () => {
  type LocalTemplate = {
    Parameters: Record<string, { Default?: unknown }>;
    Resources: Record<
      string,
      {
        Type: string;
        Metadata?: Record<string, unknown>;
        Properties: { Environment?: { Variables?: Record<string, unknown> } };
      }
    >;
  };
  const json = () => stage('local').api.toJSON() as LocalTemplate;
  const variablesOf = (id: string) =>
    (
      functionOf(stage('local').api, id).Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;

  /** What SAM resolves (intrinsics_symbol_table.py): a literal, a parameter's default, an ARN. */
  const samResolves = (template: LocalTemplate, value: unknown): boolean => {
    if (typeof value === 'string') return true;
    const { Ref: ref, 'Fn::GetAtt': getAtt } = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown };
    if (typeof ref === 'string') return typeof template.Parameters[ref]?.Default === 'string';
    return Array.isArray(getAtt) && getAtt[1] === 'Arn';
  };

  it('names each function by its id and gives every variable a value SAM resolves', () => {
    const template = json();
    const lambdas = Object.entries(template.Resources).filter(
      ([, r]) => r.Type === 'AWS::Lambda::Function',
    );
    expect(lambdas.flatMap(([, r]) => r.Metadata?.SamResourceId ?? []).sort()).toEqual(
      [...ALL_FUNCTIONS].sort(),
    );
    // CDK's own helper functions too: SAM would run them with whatever they hold.
    for (const [logicalId, fn] of lambdas) {
      for (const [name, value] of Object.entries(fn.Properties.Environment?.Variables ?? {})) {
        expect(samResolves(template, value), `${logicalId} ${name}: ${JSON.stringify(value)}`).toBe(
          true,
        );
      }
    }
  });

  it("points the SDK's endpoints nowhere until SAM's --env-vars file says where", () => {
    for (const id of ALL_FUNCTIONS) {
      const endpoints = Object.entries(variablesOf(id)).filter(([name]) =>
        name.startsWith('AWS_ENDPOINT_URL_'),
      );
      for (const [name, value] of endpoints) expect(value, `${id} ${name}`).toMatch(/\.invalid$/);
    }
    expect(variablesOf('UploadUserFile')).toMatchObject({
      AWS_ENDPOINT_URL_DYNAMODB: 'http://dynamodb.set-by-sam-env-vars.invalid',
      AWS_ENDPOINT_URL_S3: 'http://s3.set-by-sam-env-vars.invalid',
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    });
  });

  it("takes the data stack's outputs as parameters, the local stage's names by default", () => {
    expect(json().Parameters.TableName?.Default).toBe(LOCAL_TABLE);
    expect(json().Parameters.BucketName?.Default).toBe(LOCAL_BUCKET);
    expect(variablesOf('UploadUserFile')).toMatchObject({
      TABLE_NAME: { Ref: 'TableName' },
      BUCKET_NAME: { Ref: 'BucketName' },
    });
  });
});

describe('alarms', () => {
  // Every function but the deploy-time key initializer, whose failure fails the deploy.
  const watched = ALL_FUNCTIONS.filter((id) => id !== 'InitRealtimeKeys');

  it('alarms on every function’s errors and throttles, the API’s 5xx, any dead letter and any threat found, to the stage’s topic', () => {
    const { api } = stage('development');
    const alarms = Object.entries(api.findResources('AWS::CloudWatch::Alarm'));
    const ids = alarms.map(([id]) => id.replace(/^Alarms/, '').replace(/[0-9A-F]{8}$/, ''));
    expect(ids.sort()).toEqual(
      [
        ...watched.flatMap((id) => [`${id}Errors`, `${id}Throttles`]),
        'Api5xx',
        'NotificationDeadLettersDepth',
        'UploadEventFailuresDepth',
        'ScanEventFailuresDepth',
        'ThreatsFound',
      ].sort(),
    );
    const [topic] = only(api, 'AWS::SNS::Topic', 'AlarmTopic');
    for (const [, alarm] of alarms as [string, Resource][]) {
      expect(alarm.Properties).toMatchObject({
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: topic }],
        OKActions: [{ Ref: topic }],
      });
    }
    // enforceSSL's topic policy replaces SNS's default: CloudWatch needs a statement of its own.
    api.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: Match.objectLike({
              StringEquals: Match.anyValue(),
              ArnLike: Match.anyValue(),
            }),
          }),
        ]),
      },
    });
    api.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
    // alarmChat: the topic invokes the chat poster, which retries in place, not Lambda.
    const [poster] = only(api, 'AWS::Lambda::Function', 'PostAlarmFunction');
    api.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'lambda',
      TopicArn: { Ref: topic },
      Endpoint: { 'Fn::GetAtt': [poster, 'Arn'] },
    });
    api.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'sns.amazonaws.com',
      SourceArn: { Ref: topic },
      FunctionName: { 'Fn::GetAtt': [poster, 'Arn'] },
    });
    api.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: poster },
      MaximumRetryAttempts: 0,
    });
    // What the client saw, whatever the function logged (a result Lambda refused, a timeout).
    api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5xx',
      Namespace: 'AWS/ApiGateway',
      Statistic: 'Sum',
    });
    api.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
    });
  });

  it('warns at synth when the alarms would reach nobody, or chat alone', () => {
    // An app without an outdir leaves a cdk.out* folder in the temp dir when a worker stops.
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
    onTestFinished(() => {
      rmSync(outdir, { recursive: true, force: true });
    });
    const warningsFor = (settings: Record<string, unknown>, pattern = 'nobody subscribes') => {
      const stack = new Stack(new App({ outdir }), 'Alarmed');
      const values: Record<string, unknown> = {
        stage: 'production',
        jwtIssuer: ISSUER,
        ...settings,
      };
      alarmTarget(
        stack,
        stageConfig((key) => values[key]),
      );
      return Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp(pattern));
    };
    expect(warningsFor({})).toHaveLength(1);
    expect(warningsFor({ alarmEmail: 'oncall@example.com' })).toEqual([]);
    expect(warningsFor({ alarmChat: 'true' })).toEqual([]);
    expect(warningsFor({ alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall' })).toEqual([]);
    // Chat alone: a webhook that fails would tell no one, its own errors alarm included.
    expect(warningsFor({ alarmChat: 'true' }, 'chat only')).toHaveLength(1);
    expect(
      warningsFor({ alarmChat: 'true', alarmEmail: 'oncall@example.com' }, 'chat only'),
    ).toEqual([]);
  });

  it('subscribes nobody the stage did not name: no email, no chat', () => {
    expect(Object.keys(stage('production').api.findResources('AWS::SNS::Subscription'))).toEqual(
      [],
    );
  });

  it('sends alarms to an existing topic when the stage names one (and to chat from it), and has none locally', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:oncall';
    const { api } = synthStage({
      stage: 'production',
      jwtIssuer: ISSUER,
      alarmTopicArn: arn,
      alarmChat: 'true',
    });
    expect(Object.keys(api.findResources('AWS::SNS::Topic'))).toEqual([]);
    api.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: [arn] });
    const subscriptions = Object.values(api.findResources('AWS::SNS::Subscription')) as Resource[];
    expect(subscriptions.map((s) => s.Properties)).toEqual([
      {
        Protocol: 'lambda',
        TopicArn: arn,
        // The subscription is made in the topic's region, which may not be the stack's.
        Region: 'eu-west-1',
        Endpoint: {
          'Fn::GetAtt': [only(api, 'AWS::Lambda::Function', 'PostAlarmFunction')[0], 'Arn'],
        },
      },
    ]);
    expect(Object.keys(stage('local').api.findResources('AWS::CloudWatch::Alarm'))).toEqual([]);
  });

  it('docs/deploying.md’s count of alarms (infra/render/stage-cost.ts) is each deployed stage’s', () => {
    const count = (name: StageName) =>
      Object.keys(stage(name).api.findResources('AWS::CloudWatch::Alarm')).length;
    expect(count('production')).toBe(DEPLOYED_ALARMS);
    expect(count('development')).toBe(DEPLOYED_ALARMS);
    expect(WATCHED_FUNCTIONS.map((fn) => fn.id)).toEqual(watched);
  });
});

/** A dashboard's body, its tokens written `{Ref}` (a Ref's target) or `{token}`. */
function dashboardBody(api: Template): DashboardBody {
  const [[, dashboard] = []] = Object.entries(api.findResources('AWS::CloudWatch::Dashboard'));
  const body = (dashboard as Resource | undefined)?.Properties.DashboardBody as {
    'Fn::Join': [string, unknown[]];
  };
  const text = body['Fn::Join'][1]
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = (part as { Ref?: unknown }).Ref;
      return typeof ref === 'string' ? `{${ref}}` : '{token}';
    })
    .join('');
  return JSON.parse(text) as DashboardBody;
}

interface DashboardBody {
  readonly widgets: {
    readonly type: string;
    readonly properties: {
      readonly title?: string;
      readonly metrics?: (string | { label?: string; stat?: string; expression?: string })[][];
    };
  }[];
}

/** Each metric of a widget as `Namespace Name dim=value… (stat) label`. */
function linesOf(widget: DashboardBody['widgets'][number]): string[] {
  return (widget.properties.metrics ?? []).map((row) => {
    const options = row.find((cell) => typeof cell === 'object');
    const cells = row.filter((cell): cell is string => typeof cell === 'string');
    const [namespace, name, ...dims] = cells;
    const pairs: string[] = [];
    for (let i = 0; i + 1 < dims.length; i += 2)
      pairs.push(`${dims[i] ?? ''}=${dims[i + 1] ?? ''}`);
    if (options?.expression !== undefined) return `expression (${options.label ?? ''})`;
    return `${namespace ?? ''} ${name ?? ''} ${pairs.join(' ')} (${options?.stat ?? ''}) ${options?.label ?? ''}`.replace(
      / +/g,
      ' ',
    );
  });
}

describe('the dashboard', () => {
  const widgets = () => dashboardBody(stage('production').api).widgets;

  it('docs/deploying.md’s cost of it holds: one a stage, drawing more metrics than the free tier’s 50', () => {
    for (const name of STAGE_NAMES) {
      const { api } = stage(name);
      expect(Object.keys(api.findResources('AWS::CloudWatch::Dashboard')), name).toHaveLength(1);
      const lines = dashboardBody(api).widgets.flatMap(linesOf);
      const perFunction = lines.filter((line) =>
        ALL_FUNCTIONS.some((id) => line.endsWith(` ${id}`)),
      );
      expect(perFunction, name).toHaveLength(DASHBOARD_METRICS_PER_FUNCTION * ALL_FUNCTIONS.length);
      expect(lines.length, name).toBeGreaterThan(50);
    }
  });
  const widget = (title: string) => {
    const found = widgets().find((w) => w.properties.title === title);
    if (found === undefined) throw new Error(`no widget "${title}"`);
    return found;
  };

  it('is in each deployed stage, with a name of CloudFormation’s and its address as an output', () => {
    for (const name of ['production', 'development'] as const) {
      const dashboards = stage(name).api.findResources('AWS::CloudWatch::Dashboard');
      expect(Object.values(dashboards)).toHaveLength(1);
      expect(Object.values(dashboards)[0]?.Properties).not.toHaveProperty('DashboardName');
      stage(name).api.hasOutput('DashboardUrl', {});
    }
  });

  it('shows the API, the functions, the table and queues, then the business metrics', () => {
    expect(widgets().map((w) => w.properties.title ?? w.type)).toEqual([
      'text',
      'API requests',
      'API 4xx and 5xx',
      'API latency',
      'Function errors',
      'Function duration p99',
      'Function throttles',
      'Function concurrency (max)',
      'DynamoDB throttled requests',
      'Notification queue',
      'Dead letters',
      'Uploads',
      'Uploaded bytes',
      'Realtime tokens',
      'Notifications',
      'Malware scans',
      'Refusals and replays',
      'Cold starts',
    ]);
  });

  it('draws API Gateway’s requests, 4xx, 5xx and latency p50/p99 for the stage’s API', () => {
    const api = '{HttpApiF5A9A8A7}';
    expect(linesOf(widget('API requests'))).toEqual([
      `AWS/ApiGateway Count ApiId=${api} (Sum) Requests`,
    ]);
    expect(linesOf(widget('API 4xx and 5xx'))).toEqual([
      `AWS/ApiGateway 4xx ApiId=${api} (Sum) 4xx`,
      `AWS/ApiGateway 5xx ApiId=${api} (Sum) 5xx`,
    ]);
    expect(linesOf(widget('API latency'))).toEqual([
      `AWS/ApiGateway Latency ApiId=${api} (p50) p50`,
      `AWS/ApiGateway Latency ApiId=${api} (p99) p99`,
    ]);
  });

  it('draws errors, p99 duration, throttles and concurrency of every function, one line each', () => {
    const metrics = {
      'Function errors': 'Errors (Sum)',
      'Function duration p99': 'Duration (p99)',
      'Function throttles': 'Throttles (Sum)',
      'Function concurrency (max)': 'ConcurrentExecutions (Maximum)',
    };
    for (const [title, metric] of Object.entries(metrics)) {
      const lines = linesOf(widget(title));
      expect(lines.map((line) => line.split(' ').at(-1)).sort(), title).toEqual(
        [...ALL_FUNCTIONS].sort(),
      );
      for (const line of lines) {
        expect(line).toMatch(/^AWS\/Lambda \S+ FunctionName=\{\w+\} \(\w+\) \w+$/);
        expect(line.replace(/ FunctionName=\S+/, '').replace(/ \w+$/, '')).toBe(
          `AWS/Lambda ${metric}`,
        );
      }
    }
  });

  it('draws the table’s throttled requests, the queue’s depth and age, and every dead-letter queue', () => {
    const throttles = linesOf(widget('DynamoDB throttled requests'));
    expect(throttles[0]).toBe('expression (Sum of throttled requests across all operations)');
    expect(throttles.slice(1).map((line) => /Operation=(\w+)/.exec(line)?.[1])).toEqual([
      'GetItem',
      'BatchGetItem',
      'Query',
      'Scan',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'BatchWriteItem',
      'TransactWriteItems',
    ]);
    expect(
      linesOf(widget('Notification queue')).map((l) => l.replace(/QueueName=\S+ /, '')),
    ).toEqual([
      'AWS/SQS ApproximateNumberOfMessagesVisible (Maximum) Waiting',
      'AWS/SQS ApproximateAgeOfOldestMessage (Maximum) Oldest (s)',
    ]);
    expect(linesOf(widget('Dead letters')).map((l) => l.replace(/QueueName=\S+ /, ''))).toEqual([
      'AWS/SQS ApproximateNumberOfMessagesVisible (Maximum) Notifications',
      'AWS/SQS ApproximateNumberOfMessagesVisible (Maximum) Upload events',
      'AWS/SQS ApproximateNumberOfMessagesVisible (Maximum) Scan events',
    ]);
  });

  it('draws every business metric and the cold starts, from the stage’s namespace', () => {
    const business = [
      'Uploads',
      'Uploaded bytes',
      'Realtime tokens',
      'Notifications',
      'Malware scans',
      'Refusals and replays',
    ].flatMap((title) => linesOf(widget(title)));
    for (const line of business) {
      expect(line).toMatch(/^FileService\/production \w+ service=file-service /);
    }
    const drawn = new Set(business.map((line) => line.split(' ')[1]));
    expect([...drawn].sort()).toEqual(Object.keys(BUSINESS_METRICS).sort());
    expect(business).toContain(
      'FileService/production Refusals service=file-service statusClass=5xx (Sum) Refusals 5xx',
    );
    const coldStarts = linesOf(widget('Cold starts'));
    expect(coldStarts.map((line) => line.split(' ').at(-1)).sort()).toEqual(
      [...ALL_FUNCTIONS].sort(),
    );
    for (const line of coldStarts) {
      expect(line).toMatch(
        /^FileService\/production ColdStart function_name=\{\w+\} service=file-service \(Sum\)/,
      );
    }
    expect(dashboardBody(stage('development').api).widgets.length).toBe(widgets().length);
  });
});

describe('the custom domain (apiDomainName, apiCertificateArn)', () => {
  it('with both: the name in the data stack with its certificate, the API mapped at its root, the DNS target an output', () => {
    const { data, api } = stage('development');
    const [domainId, domain] = only(data, 'AWS::ApiGatewayV2::DomainName', 'ApiDomain');
    expect(domain.Properties).toEqual({
      DomainName: API_DOMAIN,
      DomainNameConfigurations: [
        { CertificateArn: API_CERTIFICATE, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' },
      ],
      Tags: { service: 'file-service', stage: 'development' },
    });
    // Not data: it goes with the data stack, not before.
    expect(domain.DeletionPolicy).toBeUndefined();
    data.hasOutput('ApiDomainTarget', {
      Value: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
    });
    data.hasOutput('ApiDomainHostedZoneId', {
      Value: { 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] },
    });
    const [apiId] = only(api, 'AWS::ApiGatewayV2::Api', 'HttpApi');
    const [stageId] = only(api, 'AWS::ApiGatewayV2::Stage', 'HttpApiDefaultStage');
    const [, mapping] = only(api, 'AWS::ApiGatewayV2::ApiMapping', 'ApiDomainMapping');
    // By name, with no key: the whole API at https://files-dev.example.com/.
    expect(mapping.Properties).toEqual({
      ApiId: { Ref: apiId },
      DomainName: API_DOMAIN,
      Stage: '$default',
    });
    // The stage by its name, so made after it.
    expect(mapping.DependsOn).toContain(stageId);
    // Realtime tokens name the URL that outlives the API, unless realtimeIssuer says otherwise.
    const variables = functionOf(api, 'GetRealtimeToken').Properties.Environment as {
      Variables: Record<string, unknown>;
    };
    expect(variables.Variables.REALTIME_ISSUER).toBe(`https://${API_DOMAIN}`);
  });

  it('without them, as every stage starts: no name, no mapping, no output', () => {
    for (const name of ['production', 'local'] as const) {
      const { data, api } = stage(name);
      expect(Object.keys(data.findResources('AWS::ApiGatewayV2::DomainName')), name).toEqual([]);
      expect(Object.keys(api.findResources('AWS::ApiGatewayV2::ApiMapping')), name).toEqual([]);
      expect(Object.keys(data.findOutputs('ApiDomain*')), name).toEqual([]);
    }
    for (const name of STAGE_NAMES) {
      expect(STAGE_DEFAULTS[name]).not.toHaveProperty('apiDomainName');
    }
  });

  it('refuses one without the other, a name that is no hostname, an ARN that is no certificate, one of another region', () => {
    const config = (values: Record<string, unknown>) => () =>
      stageConfig((key) => ({ stage: 'development', jwtIssuer: ISSUER, ...values })[key]);
    const both =
      'Stage development: set apiDomainName and apiCertificateArn together (the custom domain serves with its certificate), or neither';
    expect(config({ apiDomainName: API_DOMAIN })).toThrow(both);
    expect(config({ apiCertificateArn: API_CERTIFICATE })).toThrow(both);
    expect(
      config({ apiDomainName: 'https://files.example.com', apiCertificateArn: API_CERTIFICATE }),
    ).toThrow(
      'Stage development: apiDomainName must be a lower-case hostname such as files.example.com (got "https://files.example.com")',
    );
    expect(
      config({ apiDomainName: 'Files.Example.com', apiCertificateArn: API_CERTIFICATE }),
    ).toThrow(/apiDomainName must be a lower-case hostname .* \(got "Files.Example.com"\)/);
    expect(
      config({
        apiDomainName: API_DOMAIN,
        apiCertificateArn: 'arn:aws:iam::123456789012:server-certificate/files',
      }),
    ).toThrow(
      /apiCertificateArn must be an ACM certificate ARN .* \(got "arn:aws:iam::123456789012:server-certificate\/files"\)/,
    );
    const deployedTo = (region: string) => () => {
      const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'cdk-test-')) });
      onTestFinished(() => {
        rmSync(app.outdir, { recursive: true, force: true });
      });
      addApiDomain(
        new Stack(app, 'Data', { env: { account: '123456789012', region } }),
        config({ apiDomainName: API_DOMAIN, apiCertificateArn: API_CERTIFICATE })(),
      );
    };
    expect(deployedTo('eu-west-1')).not.toThrow();
    expect(deployedTo('us-east-1')).toThrow(
      "Stage development: apiCertificateArn is a certificate of eu-west-1, and the stage deploys to us-east-1: a regional API's certificate must be in its region",
    );
  });
});

describe('cdk-nag', () => {
  it('finds nothing unacknowledged in any stage (synth would have thrown)', () => {
    expect(Object.keys(stages).sort()).toEqual(['development', 'local', 'production']);
  });

  it('fails the synth on a finding nobody acknowledged', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
    try {
      const app = new App({ outdir });
      new Bucket(new Stack(app, 'Careless'), 'Open');
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => app.synth()).toThrow(/AwsSolutions-S10/);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});

describe('stage config', () => {
  const context = (values: Record<string, unknown>) => (key: string) => values[key];

  it('defaults to production, which needs an issuer; local has its own', () => {
    expect(() => stageConfig(context({}))).toThrow(/production stage needs a jwtIssuer/);
    expect(() => stageConfig(context({ stage: 'development' }))).toThrow(/jwtIssuer/);
    expect(stageConfig(context({ stage: 'local' }))).toMatchObject({
      name: 'local',
      jwtIssuer: 'https://local-idp.file-service.invalid/',
      retainData: false,
      alarms: false,
    });
  });

  it('reads per-stage settings from cdk.json, and -c values over them', () => {
    const config = stageConfig(
      context({
        stage: 'development',
        stages: {
          development: { jwtIssuer: ISSUER, logRetentionDays: 30, jwtAudience: ['a', 'b'] },
        },
        logRetentionDays: '60',
      }),
    );
    expect(config).toMatchObject({
      jwtIssuer: ISSUER,
      logRetentionDays: 60,
      jwtAudience: ['a', 'b'],
    });
  });

  it("starts every stage's per-user quotas from their variables' defaults, and takes an operator's", () => {
    for (const name of STAGE_NAMES) {
      expect(stageConfig(context({ stage: name, jwtIssuer: ISSUER })), name).toMatchObject({
        maxFilesPerUser: 10_000,
        maxBytesPerUser: 10 * 1024 ** 3,
      });
    }
    expect(
      stageConfig(
        context({
          stage: 'production',
          stages: { production: { jwtIssuer: ISSUER, maxBytesPerUser: 5_368_709_120 } },
          maxFilesPerUser: '2000',
        }),
      ),
    ).toMatchObject({ maxFilesPerUser: 2000, maxBytesPerUser: 5_368_709_120 });
  });

  it('refuses a context key that is no setting, a misspelled -c above all, and passes CDK’s own', () => {
    // As `cdk synth -c stage=development -c jwtIssuer=… -c alarmEmial=…` runs the app, with
    // cdk.json's feature flags: it stops before any template is written.
    expect(() =>
      synthStage({ stage: 'development', jwtIssuer: ISSUER, alarmEmial: 'oncall@example.com' }),
    ).toThrow(
      'Stage development: unknown context -c alarmEmial (from the command line, or the top of cdk.json\'s "context"); the settings are jwtIssuer, jwtAudience, ',
    );
    expect(() =>
      stageConfig(context({ stage: 'local' }), ['stage', 'jwtIsuer', 'logLevell']),
    ).toThrow('Stage local: unknown context -c jwtIsuer, -c logLevell (from the command line');
    // What `cdk synth` 2.1148.1 passes an app beside -c and cdk.json (a probe app printed it),
    // what other CLI options add, and keys the CLI keeps in cdk.json or cdk.context.json.
    const cdkKeys = [
      'aws:cdk:enable-path-metadata',
      'aws:cdk:enable-asset-metadata',
      'aws:cdk:version-reporting',
      'aws:cdk:bundling-stacks',
      'aws:cdk:disable-version-reporting',
      'aws:cdk:disable-asset-staging',
      '@aws-cdk/core:failSynthOnValidationErrors',
      '@aws-cdk/core:bootstrapQualifier',
      '@aws-cdk-containers/ecs-service-extensions:enableDefaultLogDriver',
      'aws-cdk:enableDiffNoFail',
      'acknowledged-issue-numbers',
      'cli-telemetry',
      'availability-zones:account=123456789012:region=eu-west-1',
    ];
    const settings = { stage: 'development', jwtIssuer: ISSUER, alarmEmail: 'oncall@example.com' };
    expect(
      stageConfig(context(settings), [...Object.keys(settings), 'stages', ...cdkKeys]),
    ).toMatchObject({ name: 'development', alarmEmail: 'oncall@example.com' });
  });

  it('names the setting and the value it refuses', () => {
    const refuse = (values: Record<string, unknown>) => () =>
      stageConfig(context({ stage: 'development', jwtIssuer: ISSUER, ...values }));
    expect(refuse({ stage: 'staging' })).toThrow(
      '-c stage must be one of production, development, local; got "staging"',
    );
    expect(refuse({ jwtIssuer: 'http://idp.example/' })).toThrow(
      'Stage development: jwtIssuer must be an https:// URL (got "http://idp.example/")',
    );
    expect(refuse({ logRetentionDays: '10' })).toThrow(
      /logRetentionDays must be one of CloudWatch Logs' periods: .* \(got "10"\)/,
    );
    expect(refuse({ realtimeTokenSeconds: '0' })).toThrow(/realtimeTokenSeconds .* \(got "0"\)/);
    expect(refuse({ alarmEmail: 'nobody' })).toThrow(/alarmEmail .* \(got "nobody"\)/);
    expect(refuse({ alarms: 'false', alarmChat: 'true' })).toThrow(
      'Stage development: alarmEmail, alarmTopicArn and alarmChat need alarms=true (the stage has no alarms to send)',
    );
    expect(refuse({ allowedOrigins: 'app.example.com' })).toThrow(
      /allowedOrigins entries must be an origin .* \(got "app.example.com"\)/,
    );
    expect(refuse({ apiRateLimit: '500', apiBurstLimit: '100' })).toThrow(
      'Stage development: apiBurstLimit (100) must be at least apiRateLimit (500)',
    );
    expect(refuse({ notifyBurst: '0' })).toThrow(/notifyBurst .* \(got "0"\)/);
    expect(refuse({ notifyRatePerMinute: '-1' })).toThrow(/notifyRatePerMinute .* \(got "-1"\)/);
    expect(refuse({ maxFilesPerUser: '0' })).toThrow(/maxFilesPerUser .* \(got "0"\)/);
    expect(refuse({ maxFilesPerUser: '1000001' })).toThrow(/maxFilesPerUser .* \(got "1000001"\)/);
    expect(refuse({ maxFilesPerUser: '2.5' })).toThrow(/maxFilesPerUser .* \(got "2.5"\)/);
    expect(refuse({ maxBytesPerUser: '0' })).toThrow(/maxBytesPerUser .* \(got "0"\)/);
    expect(refuse({ maxBytesPerUser: '10GiB' })).toThrow(/maxBytesPerUser .* \(got "10GiB"\)/);
    expect(
      refuse({
        alarmEmail: 'oncall@example.com',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:t',
      }),
    ).toThrow('Stage development: set alarmEmail or alarmTopicArn, not both');
    expect(() =>
      stageConfig(context({ stage: 'local', stages: { local: { jwtIsuer: 'x' } } })),
    ).toThrow(/context.stages.local has unknown settings: jwtIsuer/);
  });
});

/** The HTTP API's CorsConfiguration, or undefined when it has none. */
const apiCors = (api: Template): unknown => {
  const apis = Object.values(api.findResources('AWS::ApiGatewayV2::Api'));
  expect(apis).toHaveLength(1);
  return (apis[0]?.Properties as { CorsConfiguration?: unknown }).CorsConfiguration;
};

/** The files bucket's CorsConfiguration, or undefined when it has none. */
const bucketCors = (data: Template): unknown => {
  const [files] = Object.entries(data.findResources('AWS::S3::Bucket')).filter(([id]) =>
    id.startsWith('Files'),
  );
  return (files?.[1].Properties as { CorsConfiguration?: unknown }).CorsConfiguration;
};

const API_CORS = {
  AllowCredentials: false,
  AllowHeaders: ['authorization', 'content-type', 'idempotency-key'],
  AllowMethods: ['DELETE', 'GET', 'PATCH', 'POST', 'PUT'],
  ExposeHeaders: ['link', 'location', 'retry-after', 'x-checksum-sha256'],
  MaxAge: 3600,
};
const bucketRules = (origins: string[]) => ({
  CorsRules: [
    // Uppy's @uppy/aws-s3 asks a bucket to expose both to the form's page (docs/browsers.md).
    {
      AllowedOrigins: origins,
      AllowedMethods: ['POST'],
      ExposedHeaders: ['ETag', 'Location'],
      MaxAge: 3600,
    },
    {
      AllowedOrigins: ['*'],
      AllowedMethods: ['GET', 'HEAD'],
      ExposedHeaders: ['ETag'],
      MaxAge: 3600,
    },
  ],
});

describe('CORS per stage (allowedOrigins)', () => {
  it('production: none on the API or the bucket until an origin is configured', () => {
    const { api, data } = stage('production');
    expect(apiCors(api)).toBeUndefined();
    expect(bucketCors(data)).toBeUndefined();
  });

  it('local: any http:// page (a dev server on any port)', () => {
    const { api, data } = stage('local');
    expect(apiCors(api)).toEqual({ ...API_CORS, AllowOrigins: ['http://*'] });
    expect(bucketCors(data)).toEqual(bucketRules(['http://*']));
  });

  it('takes the origins an operator sets (development here)', () => {
    const { api, data } = stage('development');
    expect(apiCors(api)).toEqual({ ...API_CORS, AllowOrigins: DEVELOPMENT_ORIGINS });
    expect(bucketCors(data)).toEqual(bucketRules(DEVELOPMENT_ORIGINS));
  });
});
