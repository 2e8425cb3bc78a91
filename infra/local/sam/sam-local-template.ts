/** `-c stage=local`'s API stack made fit for SAM CLI, after it is built as any stage's. */
import { CfnParameter, type CfnResource } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import type { EnvironmentName } from '#shared/config/environment.ts';
import {
  type FunctionDeclaration,
  RESOURCE_NAMES,
  type ResourceName,
} from '#shared/functions/function-declaration.ts';
import type { ApiStack } from '../../stacks/api-stack.ts';
import type { StageConfig } from '../../stages.ts';
import { LOCAL_BUCKET, LOCAL_TABLE } from '../stage/data-folder.ts';

/** Until SAM's `--env-vars` file says where: `.invalid` never resolves, so nothing calls AWS. */
const endpointFromEnvVars = (service: string) => `http://${service}.set-by-sam-env-vars.invalid`;

/** SQS and Secrets Manager: the local stage serves them in process, to its own handlers only. */
const endpointNotServed = (service: string) => `http://${service}.not-served-to-sam.invalid`;

const sqs = { AWS_ENDPOINT_URL_SQS: endpointNotServed('sqs') };
const dynamodb = { AWS_ENDPOINT_URL_DYNAMODB: endpointFromEnvVars('dynamodb') };
const secretsManager = { AWS_ENDPOINT_URL_SECRETS_MANAGER: endpointNotServed('secretsmanager') };
const s3 = {
  AWS_ENDPOINT_URL_S3: endpointFromEnvVars('s3'),
  AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
  AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
};

/** The SDK's endpoint by resource, and S3's checksums only where S3 requires them. */
export const LOCAL_SDK_ENVIRONMENT: Readonly<
  Record<ResourceName, Readonly<Record<string, string>>>
> = {
  table: dynamodb,
  trail: dynamodb,
  bucket: s3,
  trailDigests: s3,
  notificationQueue: sqs,
  notificationDeadLetters: sqs,
  realtimeKeys: secretsManager,
  chatWebhook: secretsManager,
};

/**
 * SAM resolves literals and parameters, not stack outputs: the data stack's outputs and the
 * issuer become parameters with the local stage's values, each function declares the SDK's
 * endpoints it calls, and carries its id as `SamResourceId` (`sam local invoke ListUserFiles`).
 */
export function samLocalTemplate(stack: ApiStack, stage: StageConfig): void {
  // Made once a function reads it: a parameter nothing references is a cfn-lint finding.
  const parameter = (id: string, description: string, value: string) => () =>
    (
      (stack.node.tryFindChild(id) as CfnParameter | undefined) ??
      new CfnParameter(stack, id, { type: 'String', default: value, description })
    ).valueAsString;
  const values: Partial<Record<EnvironmentName, () => string>> = {
    TABLE_NAME: parameter('TableName', "The table's name", LOCAL_TABLE),
    TRAIL_TABLE_NAME: parameter(
      'TrailTableName',
      "The access trail's table",
      `${LOCAL_TABLE}-access-trail`,
    ),
    BUCKET_NAME: parameter('BucketName', "The bucket's name", LOCAL_BUCKET),
    TRAIL_DIGEST_BUCKET_NAME: parameter('DigestBucket', "The digests' bucket", LOCAL_BUCKET),
    REALTIME_ISSUER: parameter(
      'RealtimeIssuer',
      "Realtime tokens' iss: the stage's URL",
      stage.realtimeIssuer ?? 'http://localhost:8000',
    ),
    NOTIFY_QUEUE_URL: parameter(
      'NotifyQueueUrl',
      'The notification queue (the local stage has none that SAM can reach)',
      `${endpointNotServed('sqs')}/000000000000/notifications`,
    ),
    NOTIFY_DLQ_URL: parameter(
      'NotifyDlqUrl',
      'Its dead-letter queue (the local stage has none that SAM can reach)',
      `${endpointNotServed('sqs')}/000000000000/notification-dead-letters`,
    ),
    REALTIME_KEYS_SECRET_ARN: parameter(
      'RealtimeKeysArn',
      'The realtime signing keys (the local stage keeps them in a file)',
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:realtime-keys-not-served-to-sam',
    ),
    CHAT_WEBHOOK_SECRET_ARN: parameter(
      'ChatWebhookArn',
      "The chat channel's webhook (the local stage has none that SAM can reach)",
      'arn:aws:secretsmanager:us-east-1:000000000000:secret:chat-webhook-not-served-to-sam',
    ),
  };
  for (const declaration of SERVICE_FUNCTIONS as readonly FunctionDeclaration[]) {
    const fn = stack.functions.get(declaration);
    if (!(fn instanceof LambdaFunction)) throw new Error(`${declaration.id} is no Lambda function`);
    const variables: Record<string, string> = {};
    for (const name of declaration.variables) {
      const value = values[name]?.();
      if (value !== undefined) variables[name] = value;
    }
    for (const name of RESOURCE_NAMES) {
      if (declaration[name] !== undefined) Object.assign(variables, LOCAL_SDK_ENVIRONMENT[name]);
    }
    // Replacing the stack's values, so that nothing refers to the data stack's outputs.
    for (const [name, value] of Object.entries(variables)) fn.addEnvironment(name, value);
    (fn.node.defaultChild as CfnResource).addMetadata('SamResourceId', declaration.id);
  }
}
