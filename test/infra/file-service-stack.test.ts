import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileServiceStack } from '#infra/stacks/file-service-stack.ts';
import { stageConfig } from '#infra/stages.ts';
import { API_ROUTES, FALLBACK_ROUTE } from '#shared/api/routes.ts';

let template: Template;
beforeAll(() => {
  const app = new App({
    context: { stage: 'development', jwtIssuer: 'https://issuer.example/', jwtAudience: 'api' },
  });
  const stage = stageConfig((key) => app.node.tryGetContext(key));
  template = Template.fromStack(
    new FileServiceStack(app, 'Test', { stage, root: resolve(import.meta.dirname, '../..') }),
  );
});

describe('FileServiceStack deploys the route table the local stage serves', () => {
  it('has one route per API_ROUTES entry, behind the JWT authorizer where the table says', () => {
    for (const route of API_ROUTES) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${route.path}`,
        AuthorizationType: route.auth === 'jwt' ? 'JWT' : 'NONE',
      });
    }
  });

  it('sends unmatched requests to the fallback function, with no authorizer', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
    });
  });

  it('runs every route function and the fallback on Node.js 24, arm64', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    for (const id of [...API_ROUTES.map((r) => r.functionId), FALLBACK_ROUTE.functionId]) {
      const found = Object.entries(functions).filter(([logicalId]) =>
        logicalId.startsWith(`${id}Function`),
      );
      expect(found).toHaveLength(1);
      expect(found[0]?.[1]).toMatchObject({
        Properties: { Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' },
      });
    }
  });

  it("wires each route to its own function's integration", () => {
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    for (const route of API_ROUTES) {
      const found = Object.values(routes).find(
        (r) =>
          (r as { Properties: { RouteKey: string } }).Properties.RouteKey ===
          `${route.method} ${route.path}`,
      ) as { Properties: { Target: { 'Fn::Join': [string, unknown[]] } } };
      const integrationId =
        JSON.stringify(found.Properties.Target).match(/"Ref":"([^"]+)"/)?.[1] ?? '';
      const integration = JSON.stringify(integrations[integrationId]);
      expect(integration).toMatch(new RegExp(`"${route.functionId}Function[0-9A-F]{8}"`));
    }
  });

  it('refuses to build production or development without a real issuer', () => {
    for (const stage of ['production', 'development']) {
      expect(() => stageConfig((key) => (key === 'stage' ? stage : undefined))).toThrow(
        /jwtIssuer/,
      );
    }
    expect(stageConfig((key) => (key === 'stage' ? 'local' : undefined)).jwtIssuer).toBe(
      'https://local-idp.file-service.invalid/',
    );
  });

  it('has a JWT authorizer on the Authorization header', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: { Issuer: 'https://issuer.example/', Audience: ['api'] },
    });
  });
});

describe('FileServiceStack, uploads', () => {
  it('sends object-created events under users/ to the finalizer', () => {
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        LambdaFunctionConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'users/' }] } },
          },
        ],
      },
    });
  });

  it('expires pending uploads and idempotency records by TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
    });
  });

  it('lets upload functions touch objects under users/ only', () => {
    const objectArns = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => !id.startsWith('DeleteDealFile'))
      .flatMap(([, policy]) => [
        ...JSON.stringify(policy).matchAll(
          /"Fn::GetAtt":\["Files[0-9A-F]{8}","Arn"\]\},"([^"]*)"/g,
        ),
      ])
      .map((m) => m[1]);
    expect(objectArns.length).toBeGreaterThan(0);
    expect(objectArns.every((suffix) => suffix === '/users/*')).toBe(true);
  });
});

/** The statements of the policy CDK made for one function's role. */
function statementsOf(functionId: string): { Action: string | string[]; Resource: unknown }[] {
  const found = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) =>
    id.startsWith(`${functionId}FunctionServiceRoleDefaultPolicy`),
  );
  expect(found).toHaveLength(1);
  return (
    found[0]?.[1] as {
      Properties: {
        PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] };
      };
    }
  ).Properties.PolicyDocument.Statement;
}

const actionsOf = (functionId: string) =>
  statementsOf(functionId)
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .filter((a) => !a.startsWith('xray:'))
    .sort();

describe('FileServiceStack, deal files', () => {
  it('gives each deal-file function exactly the calls its use case makes', () => {
    expect(actionsOf('ListDealFiles')).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(actionsOf('UpdateDealFile')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:UpdateItem',
    ]);
    expect(actionsOf('DeleteDealFile')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      's3:DeleteObject*',
    ]);
  });

  it('points every DynamoDB grant of the deal-file functions at the table alone', () => {
    for (const id of ['ListDealFiles', 'UpdateDealFile', 'DeleteDealFile']) {
      const dynamo = statementsOf(id).filter((s) => String(s.Action).includes('dynamodb:'));
      expect(dynamo.map((s) => s.Resource)).toEqual([
        { 'Fn::GetAtt': [expect.stringMatching(/^Table[0-9A-F]{8}$/) as string, 'Arn'] },
      ]);
    }
  });

  it('lets DeleteDealFile delete objects under groups/ only', () => {
    const s3 = statementsOf('DeleteDealFile').filter((s) => String(s.Action).startsWith('s3:'));
    expect(JSON.stringify(s3)).toMatch(/"Arn"\]\},"\/groups\/\*"\]/);
  });

  it('publishes the table and bucket names the operator CLI looks up', () => {
    template.hasOutput('TableName', {});
    template.hasOutput('BucketName', {});
  });
});

describe('FileServiceStack, realtime tokens', () => {
  it('keeps the signing keys in a secret that a custom resource fills at deploy time', () => {
    template.hasResourceProperties('AWS::CloudFormation::CustomResource', {
      SecretArn: { Ref: Match.stringLikeRegexp('^RealtimeSigningKeys') },
    });
    expect(actionsOf('InitRealtimeKeys')).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue']),
    );
    template.hasOutput('RealtimeKeysSecretArn', {});
  });

  it('lets the token function read roles and the keys, and the JWKS function the keys alone', () => {
    expect(actionsOf('GetRealtimeToken')).toEqual([
      'dynamodb:BatchGetItem',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    expect(actionsOf('RealtimeJwks')).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
  });

  it('tells both functions the issuer, audience, lifetime and secret, and starts them after the keys exist', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    for (const id of ['GetRealtimeToken', 'RealtimeJwks']) {
      const [, fn] = Object.entries(functions).find(([logicalId]) =>
        logicalId.startsWith(`${id}Function`),
      ) ?? [undefined, undefined];
      const { Properties, DependsOn } = fn as {
        Properties: { Environment: { Variables: Record<string, unknown> } };
        DependsOn?: string[];
      };
      expect(Properties.Environment.Variables).toMatchObject({
        STAGE: 'development',
        REALTIME_AUDIENCE: 'realtime',
        REALTIME_TOKEN_SECONDS: '3600',
        REALTIME_KEYS_SECRET_ARN: { Ref: expect.stringMatching(/^RealtimeSigningKeys/) as string },
        REALTIME_ISSUER: expect.anything() as unknown,
      });
      expect(DependsOn?.some((d) => d.startsWith('RealtimeKeys'))).toBe(true);
    }
  });

  it('serves the JWKS without the authorizer', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'GET /api/v1/auth/realtime-jwks.json',
      AuthorizationType: 'NONE',
    });
  });
});

describe('FileServiceStack, submission notifications', () => {
  const logicalIdOf = (type: string, prefix: string): string => {
    const [id] = Object.keys(template.findResources(type)).filter((i) => i.startsWith(prefix));
    expect(id).toBeDefined();
    return id ?? '';
  };

  it("queues notifications with a dead-letter queue after the worker's tries and two more", () => {
    const deadLetters = logicalIdOf('AWS::SQS::Queue', 'NotificationDeadLetters');
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 180,
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] },
        maxReceiveCount: 7,
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    });
  });

  it('runs the worker from the queue with partial batch failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: {
        'Fn::GetAtt': [logicalIdOf('AWS::SQS::Queue', 'Notifications'), 'Arn'],
      },
      FunctionName: { Ref: logicalIdOf('AWS::Lambda::Function', 'DeliverNotificationFunction') },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 30,
      Environment: { Variables: Match.objectLike({ NOTIFY_DLQ_URL: Match.anyValue() }) },
    });
  });

  it('tells the worker its queues and the webhook secret, never a URL', () => {
    const [fn] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) =>
      id.startsWith('DeliverNotificationFunction'),
    );
    const variables = (
      fn?.[1] as { Properties: { Environment: { Variables: Record<string, unknown> } } }
    ).Properties.Environment.Variables;
    expect(Object.keys(variables)).toEqual(
      expect.arrayContaining(['NOTIFY_QUEUE_URL', 'NOTIFY_DLQ_URL', 'CHAT_WEBHOOK_SECRET_ARN']),
    );
    expect(variables).not.toHaveProperty('CHAT_WEBHOOK_URL');
    template.hasOutput('ChatWebhookSecretArn', {});
    template.hasOutput('NotificationDeadLetterQueueUrl', {});
    template.hasOutput('NotificationQueueArn', {});
  });

  it('gives the notify, status and worker functions exactly the calls they make', () => {
    expect(actionsOf('NotifySubmission')).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
    expect(actionsOf('GetNotification')).toEqual(['dynamodb:GetItem']);
    expect(actionsOf('DeliverNotification')).toEqual([
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);
  });

  it('lets only the worker read the webhook secret and send to the dead-letter queue', () => {
    const secret = logicalIdOf('AWS::SecretsManager::Secret', 'ChatWebhookUrl');
    const deadLetters = logicalIdOf('AWS::SQS::Queue', 'NotificationDeadLetters');
    const readers = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, policy]) => JSON.stringify(policy).includes(`"Ref":"${secret}"`))
      .map(([id]) => id.replace(/Function.*$/, ''));
    expect(readers).toEqual(['DeliverNotification']);
    const senders = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, policy]) => JSON.stringify(policy).includes(`"${deadLetters}","Arn"`))
      .map(([id]) => id.replace(/Function.*$/, ''));
    expect(senders).toEqual(['DeliverNotification']);
  });
});
