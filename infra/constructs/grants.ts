import { Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { CfnPolicy, Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { rules } from 'cdk-nag';
import { Construct } from 'constructs';
import type { ItemAction, ObjectAction } from '#shared/functions/function-declaration.ts';

/**
 * Grants of exactly the calls a function makes. CDK's own `grantReadData`, `grantPut` and
 * `grantRead` give families of actions (`s3:GetObject*`, `s3:List*`, `dynamodb:Scan`, …);
 * these give one action per call the code makes, on the narrowest resource IAM can name.
 */

/**
 * Item actions on the partitions whose keys match `partitions` (IAM `dynamodb:LeadingKeys`
 * patterns such as `USER#*`). DynamoDB checks the condition for every key a call names,
 * including each key of a batch read and each item of a transaction. With `index`, on that
 * index alone: IAM names a Query of an index by the index's own ARN, a local one too. With
 * `attributes`, a call may name (and so read) those attributes alone, and no `Select` that
 * would return others (IAM's own example for attribute-level access).
 */
export function grantItems(
  table: ITableV2,
  grantee: IGrantable,
  actions: readonly ItemAction[],
  partitions: readonly string[],
  index?: string,
  attributes?: readonly string[],
): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: actions.map((action) => `dynamodb:${action}`),
    resourceArns: [index === undefined ? table.tableArn : `${table.tableArn}/index/${index}`],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] },
      ...(attributes === undefined
        ? {}
        : {
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] },
            StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
          }),
    },
  });
}

/**
 * Calls on the access trail's table, or one of its indexes: no key condition, the table is the
 * trail alone. Which calls is the declaration's (`TrailGrant`): PutItem to write, Query to read.
 */
export function grantTrail(
  table: ITableV2,
  grantee: IGrantable,
  actions: readonly ('PutItem' | 'Query')[],
  index?: string,
): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: actions.map((action) => `dynamodb:${action}`),
    resourceArns: [index === undefined ? table.tableArn : `${table.tableArn}/index/${index}`],
  });
}

/**
 * Object actions on the keys under `prefix` (`users/`, `groups/`). The wildcard is the
 * prefix itself, so cdk-nag's IAM5 finding for it is acknowledged here, naming the resource
 * as cdk-nag will see it; a bucket whose ARN resolves differently then fails the synth.
 */
export function grantObjects(
  bucket: IBucket,
  grantee: IGrantable,
  actions: readonly ObjectAction[],
  prefix: string,
): Grant {
  const objects = bucket.arnForObjects(`${prefix}*`);
  const grant = Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [objects] });
  acknowledgeWildcard(
    grantee,
    objects,
    `Object keys are ours (${prefix}<owner>/…/<file id>); the grant reaches only keys under ${prefix}, the narrowest prefix every object this function touches shares`,
  );
  return grant;
}

/**
 * The sealer's calls on the digest bucket, under the digests' prefix alone: list them
 * (`s3:ListBucket` where `s3:prefix` is theirs), read them, write new ones. A put could write a
 * new version over one but for the bucket's policy, which refuses any put without
 * `If-None-Match` (the data stack's `DigestsNeverReplaced`).
 */
export function grantDigests(bucket: IBucket, grantee: IGrantable, prefix: string): void {
  const objects = bucket.arnForObjects(`${prefix}*`);
  Grant.addToPrincipal({
    grantee,
    actions: ['s3:GetObject', 's3:PutObject'],
    resourceArns: [objects],
  });
  Grant.addToPrincipal({
    grantee,
    actions: ['s3:ListBucket'],
    resourceArns: [bucket.bucketArn],
    conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
  });
  acknowledgeWildcard(
    grantee,
    objects,
    `Digest keys are ours (${prefix}<seq>.json); the grant reaches only the digests`,
  );
}

/**
 * Where the probes below are made: a stack outside every app that synthesizes, one per process.
 * A stack without an app makes an app of its own, and each app a temporary folder, which CDK
 * removes only when the process exits normally (a test worker is stopped instead).
 */
let probeStack: Stack | undefined;

/**
 * The finding cdk-nag's wildcard rule (AwsSolutions-IAM5) reports for `resource`, as it names
 * it: the rule itself, run on a policy that holds only this resource.
 */
function wildcardFinding(resource: unknown): string {
  probeStack ??= new Stack(undefined, 'WildcardProbe');
  const policy = new CfnPolicy(probeStack, 'Policy', {
    policyName: 'probe',
    policyDocument: {
      Statement: [{ Effect: 'Allow', Action: 'probe:Probe', Resource: resource }],
    },
  });
  try {
    const findings = rules.iam.IAMNoWildcardPermissions(policy);
    const [finding] = Array.isArray(findings) ? findings : [];
    if (finding === undefined) throw new Error(`${JSON.stringify(resource)} holds no wildcard`);
    return finding;
  } finally {
    probeStack.node.tryRemoveChild(policy.node.id);
  }
}

/** Acknowledges cdk-nag's AwsSolutions-IAM5 finding for one wildcard resource of a grant. */
export function acknowledgeWildcard(
  scope: IGrantable | Construct,
  resource: string,
  reason: string,
) {
  // A function's grants land on its role, which is not beneath the function in the tree.
  const construct = 'grantPrincipal' in scope ? scope.grantPrincipal : scope;
  if (!(construct instanceof Construct)) throw new Error('A wildcard grant needs a construct');
  const finding = wildcardFinding(Stack.of(construct).resolve(resource));
  Validations.of(construct).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });
}

/**
 * `s3:ListBucket` on the bucket: without it S3 answers a HeadObject for a missing key with 403
 * rather than 404, and "not uploaded yet" could not be told from a fault.
 */
export function grantMissingObjectsAsNotFound(bucket: IBucket, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['s3:ListBucket'],
    resourceArns: [bucket.bucketArn],
  });
}

/**
 * `s3:ListBucketVersions` on the bucket, for listings under these prefixes only (`s3:prefix`):
 * a permanent delete must find every version of its key.
 */
export function grantListVersions(
  bucket: IBucket,
  grantee: IGrantable,
  prefixes: readonly string[],
): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['s3:ListBucketVersions'],
    resourceArns: [bucket.bucketArn],
    conditions: { StringLike: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
  });
}

export function grantSecretValue(
  secret: ISecret,
  grantee: IGrantable,
  access: 'read' | 'read-write',
): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions:
      access === 'read'
        ? ['secretsmanager:GetSecretValue']
        : ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
    resourceArns: [secret.secretArn],
  });
}

/** SendMessage alone: `grantSendMessages` adds GetQueueAttributes and GetQueueUrl. */
export function grantSend(queue: IQueue, grantee: IGrantable): Grant {
  return Grant.addToPrincipal({
    grantee,
    actions: ['sqs:SendMessage'],
    resourceArns: [queue.queueArn],
  });
}
