import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  type RunningEmulator,
  type RunningObjectStore,
  startBoth,
  startObjectStore,
} from '#infra/local/stage/emulators.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    emulators: { dynamodbEndpoint: string; s3Endpoint: string; s3Credentials: Credentials };
  }
}

interface Emulators {
  readonly provided: { dynamodbEndpoint: string; s3Endpoint: string; s3Credentials: Credentials };
  readonly stop: () => Promise<void>;
}

async function startEmulators(): Promise<Emulators> {
  const s3Directory = await mkdtemp(join(tmpdir(), 'file-service-s3-'));
  const started: RunningEmulator[] = [];
  let dynamodb: RunningEmulator;
  let s3: RunningObjectStore;
  try {
    [dynamodb, s3] = await startBoth(
      startDynamoDbLocal(),
      startObjectStore({ directory: s3Directory }),
      started,
    );
  } catch (error) {
    await Promise.allSettled(started.map((e) => e.stop()));
    throw error;
  }
  return {
    provided: {
      dynamodbEndpoint: dynamodb.endpoint,
      s3Endpoint: s3.endpoint,
      s3Credentials: s3.credentials,
    },
    stop: async () => {
      await Promise.all([dynamodb.stop(), s3.stop()]);
      await rm(s3Directory, { recursive: true, force: true });
    },
  };
}

/**
 * The run's emulators and how many projects use them. Kept on `globalThis`: Vitest loads this
 * file once per project, in one process, and every project must share one DynamoDB Local (a
 * JVM each cost the run seconds of CPU).
 */
interface Shared {
  emulators: Promise<Emulators>;
  users: number;
}
const SHARED = Symbol.for('file-service.test-emulators');
const registry = globalThis as { [SHARED]?: Shared };

/**
 * One DynamoDB Local (in memory) and one object store for the whole run, on free ports, shared by
 * every project that names this setup; the last project to finish stops them. Test files stay
 * apart by using a table and a bucket of their own. The object store is behind S3's authentication, as
 * under `npm start`: every client of it signs with the run's own random credentials,
 * `s3Credentials`.
 */
export default async function setup(project: TestProject) {
  const shared = (registry[SHARED] ??= { emulators: startEmulators(), users: 0 });
  shared.users += 1;
  let emulators: Emulators;
  try {
    emulators = await shared.emulators;
  } catch (error) {
    shared.users -= 1;
    if (shared.users === 0) registry[SHARED] = undefined;
    throw error;
  }
  project.provide('emulators', emulators.provided);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry[SHARED] = undefined;
    await emulators.stop();
  };
}
