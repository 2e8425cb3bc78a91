import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { tracer } from '../../observability/tracer.ts';

let client: SecretsManagerClient | undefined;

/** One Secrets Manager client per container, created on first use, traced. */
export function secretsManagerClient(): SecretsManagerClient {
  client ??= tracer.captureAWSv3Client(new SecretsManagerClient({}));
  return client;
}
