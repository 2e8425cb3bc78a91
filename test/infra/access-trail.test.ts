import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { grantTrail } from '#infra/constructs/grants.ts';
import type { StageName } from '#infra/stages.ts';
import { synthStage } from '#test/support/cdk-app.ts';

const ISSUER = 'https://issuer.example/';
const STAGES = {
  production: { context: { stage: 'production', jwtIssuer: ISSUER }, kept: true },
  local: { context: { stage: 'local' }, kept: false },
} as const satisfies Partial<Record<StageName, unknown>>;

interface Resource {
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
}
interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

const trailTableOf = (data: Template): [string, Resource] => {
  const tables = Object.entries(data.findResources('AWS::DynamoDB::GlobalTable')).filter(([id]) =>
    id.startsWith('AccessTrailTable'),
  );
  expect(tables).toHaveLength(1);
  return tables[0] as [string, Resource];
};

/** Every statement of every role in the API stack that reaches the trail's table. */
function trailStatements(api: Template, trailId: string): Map<string, Statement[]> {
  const found = new Map<string, Statement[]>();
  for (const [id, policy] of Object.entries(api.findResources('AWS::IAM::Policy'))) {
    const { Statement: statements } = (policy as Resource).Properties.PolicyDocument as {
      Statement: Statement[];
    };
    const reaching = statements.filter((s) => JSON.stringify(s.Resource).includes(trailId));
    if (reaching.length > 0) found.set(id, reaching);
  }
  return found;
}

describe('the access trail in the stacks', () => {
  for (const [name, { context, kept }] of Object.entries(STAGES)) {
    it(`${name}: a table of its own, both indexes, TTL, point-in-time recovery, kept as the table is`, () => {
      const { data } = synthStage(context);
      const [, table] = trailTableOf(data);
      const [, main] = Object.entries(data.findResources('AWS::DynamoDB::GlobalTable')).find(
        ([id]) => id.startsWith('Table'),
      ) as [string, Resource];
      expect(table.DeletionPolicy).toBe(main.DeletionPolicy);
      expect(table.DeletionPolicy).toBe(kept ? 'Retain' : 'Delete');
      const index = (name: string, partition: string) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: partition, KeyType: 'HASH' },
          { AttributeName: 'entry', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
      expect(table.Properties).toEqual({
        KeySchema: [
          { AttributeName: 'scope', KeyType: 'HASH' },
          { AttributeName: 'entry', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: expect.arrayContaining(
          ['scope', 'entry', 'time_shard', 'file'].map((attribute) => ({
            AttributeName: attribute,
            AttributeType: 'S',
          })),
        ) as unknown,
        GlobalSecondaryIndexes: [index('ByTime', 'time_shard'), index('ByFile', 'file')],
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: undefined,
        TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
        Replicas: [
          expect.objectContaining({
            DeletionProtectionEnabled: kept,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      });
      // No fixed name: CloudFormation names it, and the functions and the CLI find it.
      expect(table.Properties).not.toHaveProperty('TableName');
      expect(JSON.stringify(data.findOutputs('AccessTrailTableName'))).toContain(
        'AccessTrailTable',
      );
    });
  }

  it('lets functions put entries and read them, and none change, delete or batch-write one', () => {
    const { data, api } = synthStage(STAGES.production.context);
    const [trailId] = trailTableOf(data);
    const reaching = trailStatements(api, trailId);
    for (const [policy, statements] of reaching) {
      const actions = statements.flatMap((s) => [s.Action].flat());
      expect(
        actions.filter((a) => !/^dynamodb:(PutItem|Query)$/.test(a)),
        policy,
      ).toEqual([]);
    }
    // A writer's policy on the trail: PutItem on the table itself, nothing else.
    const writers = SERVICE_FUNCTIONS.flatMap((fn) => {
      const grants = (fn as { trail?: readonly { items: readonly string[]; index?: string }[] })
        .trail;
      const onlyPuts =
        grants?.every((grant) => grant.index === undefined && grant.items.join() === 'PutItem') ??
        false;
      return onlyPuts ? [fn.id] : [];
    });
    for (const writer of writers) {
      const role = new RegExp(`^[A-Z][A-Za-z]*?${writer}Role`);
      const [, statements] = [...reaching].find(([policy]) => role.test(policy)) ?? [];
      expect(statements, writer).toEqual([
        { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: expect.anything() as unknown },
      ]);
    }
    expect(reaching.size).toBeGreaterThanOrEqual(writers.length);
  });

  it('grants a trail call on the table or one index, with no key condition', () => {
    const stack = new Stack(new App(), 'Grants');
    const table = new TableV2(stack, 'Trail', {
      partitionKey: { name: 'scope', type: AttributeType.STRING },
    });
    const writer = new Role(stack, 'Writer', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    const reader = new Role(stack, 'Reader', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    grantTrail(table, writer, ['PutItem']);
    grantTrail(table, reader, ['Query'], 'ByFile');
    const template = Template.fromStack(stack);
    const statementsOf = (role: string) =>
      (
        Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
          id.startsWith(role),
        )?.[1] as Resource
      ).Properties.PolicyDocument;
    const arn = { 'Fn::GetAtt': [expect.stringMatching(/^Trail/), 'Arn'] };
    expect(statementsOf('Writer')).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: arn }],
    });
    expect(statementsOf('Reader')).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'dynamodb:Query',
          Resource: { 'Fn::Join': ['', [arn, '/index/ByFile']] },
        },
      ],
    });
  });
});
