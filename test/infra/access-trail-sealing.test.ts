import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { sealAccessTrailFunction } from '#functions/seal-access-trail/function.ts';
import { SEAL_GRACE_SECONDS, SEAL_PERIOD_MINUTES } from '#shared/access-trail/seal-access-trail.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import { synthStage } from '#test/support/cdk-app.ts';

const ISSUER = 'https://issuer.example/';
const PRODUCTION = { stage: 'production', jwtIssuer: ISSUER };
/** A stage whose operator set a shorter retention. */
const DEVELOPMENT = {
  stage: 'development',
  jwtIssuer: ISSUER,
  alarmEmail: 'oncall@example.com',
  accessTrailRetentionDays: '30',
};
const LOCAL = { stage: 'local' };

interface Resource {
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
}

function only(template: Template, type: string, pattern: RegExp): [string, Resource] {
  const found = Object.entries(template.findResources(type)).filter(([id]) => pattern.test(id));
  expect(found.map(([id]) => id)).toHaveLength(1);
  return found[0] as [string, Resource];
}

const digestBucketOf = (data: Template) =>
  only(data, 'AWS::S3::Bucket', /^AccessTrailDigestBucket/);

describe('the access trail digest bucket', () => {
  const stages = [
    ['production', PRODUCTION, 400],
    ['development', DEVELOPMENT, 30],
    ['local', LOCAL, 400],
  ] as const;

  for (const [name, context, days] of stages) {
    it(`${name}: Object Lock in compliance mode for the stage's ${String(days)} days, versioned, encrypted, private, kept`, () => {
      const { data } = synthStage(context);
      const [id, bucket] = digestBucketOf(data);
      expect(bucket.Properties).toMatchObject({
        ObjectLockEnabled: true,
        ObjectLockConfiguration: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: days } },
        },
        VersioningConfiguration: { Status: 'Enabled' },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        // Who read a digest: the access-log bucket the files' log goes to.
        LoggingConfiguration: {
          DestinationBucketName: { Ref: expect.stringMatching(/^AccessLogs/) as unknown },
          LogFilePrefix: 'access-trail-digests/',
        },
      });
      // No fixed name; locked objects outlive a delete, so every stage keeps the bucket.
      expect(bucket.Properties).not.toHaveProperty('BucketName');
      expect(bucket.DeletionPolicy).toBe('Retain');
      // TLS only; no put that could replace a digest (S3's conditional writes, enforced), and
      // no delete that would hide one behind a delete marker (the lock keeps its version).
      data.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Sid: 'DigestsNeverReplaced',
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 's3:PutObject',
              Condition: { Null: { 's3:if-none-match': 'true' } },
            }),
            Match.objectLike({
              Sid: 'DigestsNeverDeleted',
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 's3:DeleteObject',
            }),
          ]),
        },
      });
      // The API stack's functions and the operator CLI find it by its output.
      expect(JSON.stringify(data.findOutputs('AccessTrailDigestBucketName'))).toContain(id);
    });
  }
});

describe('the sealer', () => {
  it(`runs every ${String(SEAL_PERIOD_MINUTES)} minutes, each run tried once: the next one makes up for it`, () => {
    const { api } = synthStage(PRODUCTION);
    const [fnId] = only(api, 'AWS::Lambda::Function', /SealAccessTrailFunction[0-9A-F]{8}$/);
    const [ruleId, rule] = only(api, 'AWS::Events::Rule', /^AccessTrailSealerSchedule/);
    expect(rule.Properties).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [fnId, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
        },
      ],
    });
    api.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
    api.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
    });
  });

  it('reads the trail by time, and lists, reads and writes the digests alone', () => {
    const { api } = synthStage(PRODUCTION);
    const [, policy] = only(api, 'AWS::IAM::Policy', /SealAccessTrailRoleDefaultPolicy/);
    const statements = (
      policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
    ).Statement.filter((s) => !/"(xray|logs):/.test(JSON.stringify(s.Action)));
    const text = JSON.stringify(statements);
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: {
          'Fn::Join': ['', [expect.objectContaining({}) as unknown, '/index/ByTime']],
        },
      },
      expect.objectContaining({ Action: ['s3:GetObject', 's3:PutObject'] }),
      expect.objectContaining({
        Action: 's3:ListBucket',
        Condition: { StringLike: { 's3:prefix': ['access-trail/digests/*'] } },
      }),
    ]);
    expect(text).toContain('"OutputName":"AccessTrailDigestBucketName"');
    expect(text).toContain('/access-trail/digests/*');
    expect(text).toContain('AccessTrailTable');
  });

  it('alarms on its errors and throttles, as every function does', () => {
    const { api } = synthStage(DEVELOPMENT);
    for (const alarm of ['SealAccessTrailErrors', 'SealAccessTrailThrottles']) {
      only(api, 'AWS::CloudWatch::Alarm', new RegExp(`^Alarms${alarm}`));
    }
  });

  it("seals behind every writer: the grace covers a writer's timeout, a refusal's minute and a margin", () => {
    const writers = (SERVICE_FUNCTIONS as readonly FunctionDeclaration[]).filter((fn) =>
      fn.trail?.some((grant) => grant.items.includes('PutItem')),
    );
    for (const writer of writers) {
      expect(writer.sizing.timeoutSeconds + 60 + 60, writer.id).toBeLessThanOrEqual(
        SEAL_GRACE_SECONDS,
      );
    }
    // The sealer itself writes no entry, and a run ends well before the next one starts.
    expect(sealAccessTrailFunction.trail.flatMap((grant) => grant.items)).toEqual(['Query']);
    expect(sealAccessTrailFunction.sizing.timeoutSeconds).toBeLessThan(SEAL_PERIOD_MINUTES * 60);
  });
});
