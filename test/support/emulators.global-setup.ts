import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  type RunningEmulator,
  type RunningS3rver,
  startBoth,
  startS3rver,
} from '#infra/local/emulators.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    emulators: { dynamodbEndpoint: string; s3Endpoint: string; s3Credentials: Credentials };
  }
}

/**
 * One DynamoDB Local (in memory) and one s3rver for the whole run, on free ports. Test files
 * stay apart by using a table and a bucket of their own. s3rver is behind S3's authentication,
 * as under `npm start`: every client of it signs with the run's own random credentials,
 * `s3Credentials`.
 */
export default async function setup(project: TestProject) {
  const s3Directory = await mkdtemp(join(tmpdir(), 'file-service-s3-'));
  const started: RunningEmulator[] = [];
  let dynamodb: RunningEmulator;
  let s3: RunningS3rver;
  try {
    [dynamodb, s3] = await startBoth(
      startDynamoDbLocal(),
      startS3rver({ directory: s3Directory }),
      started,
    );
  } catch (error) {
    await Promise.allSettled(started.map((e) => e.stop()));
    throw error;
  }
  project.provide('emulators', {
    dynamodbEndpoint: dynamodb.endpoint,
    s3Endpoint: s3.endpoint,
    s3Credentials: s3.credentials,
  });
  return async () => {
    await Promise.all([dynamodb.stop(), s3.stop()]);
    await rm(s3Directory, { recursive: true, force: true });
  };
}
