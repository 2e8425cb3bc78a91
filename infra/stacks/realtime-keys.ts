import { CustomResource, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { acknowledgeWildcard } from '../constructs/grants.ts';

export interface RealtimeKeysProps {
  /** The custom resource's handler (declared `realtimeKeys: 'read-write'`). */
  readonly initializer: IFunction;
  /** The functions that sign with the keys or publish them (declared `realtimeKeys: 'read'`). */
  readonly readers: readonly IFunction[];
  /** The secret that holds the ES256 key set. */
  readonly secret: ISecret;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * Realtime tokens are signed with ES256 keys kept in one secret, which this custom resource
 * fills with a first key at deploy time (never replacing one); the operator CLI rotates them.
 * The readers start only once that first key exists (`ready`).
 */
export class RealtimeKeys extends Construct {
  readonly ready: CustomResource;

  constructor(scope: Construct, id: string, props: RealtimeKeysProps) {
    super(scope, id);
    const init = props.initializer;
    const provider = new Provider(this, 'Provider', {
      onEventHandler: init,
      logGroup: new LogGroup(this, 'ProviderLogs', {
        retention: props.logRetention,
        removalPolicy: props.removalPolicy,
      }),
    });
    // The CDK custom-resource framework's own function: CDK builds its role.
    Validations.of(provider).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: "CDK's custom-resource framework function; it runs only during deployments",
    });
    acknowledgeWildcard(
      provider,
      `${init.functionArn}:*`,
      'The framework may invoke any version of the one function it fronts',
    );
    this.ready = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      properties: { SecretArn: props.secret.secretArn },
    });
    // No token, and no key published, before the first key exists.
    for (const reader of props.readers) reader.node.addDependency(this.ready);
  }
}
