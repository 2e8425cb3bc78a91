import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startBoth, startObjectStore } from '#infra/local/stage/stand-ins.ts';
import type { Credentials } from '#infra/local/sigv4-check.ts';
import { startDynamoDbLocal } from '#infra/local/dynamodb/dynamodb-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    standIns: { dynamodbEndpoint: string; s3Endpoint: string; s3Credentials: Credentials };
  }
}

interface StandIns {
  readonly provided: { dynamodbEndpoint: string; s3Endpoint: string; s3Credentials: Credentials };
  readonly stop: () => Promise<void>;
}

async function startStandIns(): Promise<StandIns> {
  const s3Directory = await mkdtemp(join(tmpdir(), 'file-service-s3-'));
  const [dynamodb, s3] = await startBoth(
    startDynamoDbLocal(),
    startObjectStore({ directory: s3Directory }),
  );
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
 * The run's stand-ins and how many projects use them. Kept on `globalThis`: Vitest loads this
 * file once per project, in one process, and every project must share one DynamoDB Local (a
 * JVM each cost the run seconds of CPU).
 */
interface Shared {
  standIns: Promise<StandIns>;
  users: number;
}
const SHARED = Symbol.for('file-service.test-stand-ins');
const registry = globalThis as { [SHARED]?: Shared };

/**
 * One DynamoDB Local (in memory) and one object store for the whole run, on free ports, shared by
 * every project that names this setup; the last project to finish stops them. Test files stay
 * apart by using a table and a bucket of their own. The object store is behind S3's authentication, as
 * under `npm start`: every client of it signs with the run's own random credentials,
 * `s3Credentials`.
 */
export default async function setup(project: TestProject) {
  const shared = (registry[SHARED] ??= { standIns: startStandIns(), users: 0 });
  shared.users += 1;
  let standIns: StandIns;
  try {
    standIns = await shared.standIns;
  } catch (error) {
    shared.users -= 1;
    if (shared.users === 0) registry[SHARED] = undefined;
    throw error;
  }
  project.provide('standIns', standIns.provided);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry[SHARED] = undefined;
    await standIns.stop();
  };
}
