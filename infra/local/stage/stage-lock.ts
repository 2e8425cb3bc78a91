import { readdirSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STORAGE_LIMIT_SETTINGS, type StorageLimitSetting } from '#shared/config/environment.ts';
import type { LocalStage } from './local-stage.ts';

/** What a running `npm start` records in its data folder, for CLIs and for the next start. */
export type StageRecord = Pick<
  LocalStage,
  | 'url'
  | 'lambdaEndpoint'
  | 'dynamodbEndpoint'
  | 'dynamodbNetworkEndpoint'
  | 's3Endpoint'
  | 'tableName'
  | 'bucket'
  | 'dynamodbPid'
> & {
  readonly pid: number;
  /** For the operator CLI's `scan` and `usage`. */
  readonly malwareScanning?: boolean;
  readonly storageLimits?: Pick<LocalStage['wiring']['settings'], StorageLimitSetting>;
};

/** The record of a stage that this process runs. */
export const stageRecordOf = (stage: LocalStage): StageRecord => {
  const { url, lambdaEndpoint, dynamodbEndpoint, s3Endpoint, tableName, bucket } = stage;
  const { dynamodbNetworkEndpoint, dynamodbPid } = stage;
  return {
    pid: process.pid,
    ...{ url, lambdaEndpoint, dynamodbEndpoint, s3Endpoint, tableName, bucket },
    ...(dynamodbNetworkEndpoint === undefined ? {} : { dynamodbNetworkEndpoint }),
    ...(dynamodbPid === undefined ? {} : { dynamodbPid }),
    malwareScanning: stage.wiring.settings.MALWARE_SCANNING === 'on',
    storageLimits: Object.fromEntries(
      STORAGE_LIMIT_SETTINGS.map((name) => [name, stage.wiring.settings[name]]),
    ) as StageRecord['storageLimits'],
  };
};

export const stageRecordPath = (dataDir: string): string => join(dataDir, 'local-stage.json');

/** Whether a process with this pid exists (signal 0 checks, and sends nothing). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function readStageRecord(dataDir: string): Promise<StageRecord | undefined> {
  try {
    return JSON.parse(await readFile(stageRecordPath(dataDir), 'utf8')) as StageRecord;
  } catch {
    return undefined;
  }
}

/** The `npm start` that holds this data folder, if one still runs. */
export async function runningStage(dataDir: string): Promise<StageRecord | undefined> {
  const record = await readStageRecord(dataDir);
  return record !== undefined && isAlive(record.pid) ? record : undefined;
}

/**
 * A start killed outright cannot stop its DynamoDB Local: the next one, holding the folder,
 * stops every DynamoDB Local on this folder's database. Linux only (/proc).
 */
export function reapOrphans(dataDir: string): number[] {
  const database = `\0${join(dataDir, 'dynamodb')}\0`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const reaped: number[] = [];
  for (const pid of pids) {
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (commandLine.includes('DynamoDBLocal') && commandLine.includes(database)) {
      process.kill(Number(pid), 'SIGKILL');
      reaped.push(Number(pid));
    }
  }
  return reaped;
}

export async function writeStageRecord(dataDir: string, record: StageRecord): Promise<void> {
  await writeFile(stageRecordPath(dataDir), JSON.stringify(record, null, 2));
}

export async function removeStageRecord(dataDir: string): Promise<void> {
  await rm(stageRecordPath(dataDir), { force: true });
}
