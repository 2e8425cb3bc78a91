import { readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { STORAGE_LIMIT_SETTINGS, type StorageLimitSetting } from '#shared/config/environment.ts';
import type { LocalStage } from './local-stage.ts';

/** What a running `npm start` records in its data folder, for CLIs and for the next start. */
export type StageRecord = ReturnType<typeof stageRecordOf>;

/** The record of a stage that this process runs. */
export const stageRecordOf = (stage: LocalStage) => {
  const { url, lambdaEndpoint, dynamodbEndpoint, s3Endpoint, tableName, bucket } = stage;
  const { settings } = stage.wiring;
  return {
    pid: process.pid,
    ...{ url, lambdaEndpoint, dynamodbEndpoint, s3Endpoint, tableName, bucket },
    dynamodbPid: stage.dynamodbPid,
    // For the operator CLI's `scan` and `usage`.
    malwareScanning: settings.MALWARE_SCANNING === 'on',
    accessTrailRetentionDays: settings.ACCESS_TRAIL_RETENTION_DAYS,
    storageLimits: Object.fromEntries(
      STORAGE_LIMIT_SETTINGS.map((name) => [name, settings[name]]),
    ) as Pick<typeof settings, StorageLimitSetting>,
  };
};

export const stageRecordPath = (dataDir: string): string => join(dataDir, 'local-stage.json');

/**
 * Whether a pid runs: it exists (signal 0 checks, and sends nothing) and is no zombie, as
 * Linux's /proc says: a killed stage's waits for a parent that may never read it (a container
 * whose first process reaps nothing).
 */
async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  return !/^\d+ \(.*\) Z /.test(stat);
}

/** The data folder's stage record: none when missing or unreadable. */
export const readStageRecord = (dataDir: string): Promise<StageRecord | undefined> =>
  readFile(stageRecordPath(dataDir), 'utf8')
    .then((text) => JSON.parse(text) as StageRecord)
    .catch(() => undefined);

/** The `npm start` that holds this data folder, if one still runs. */
export async function runningStage(dataDir: string): Promise<StageRecord | undefined> {
  const record = await readStageRecord(dataDir);
  return record !== undefined && (await isRunning(record.pid)) ? record : undefined;
}

/**
 * A start killed outright cannot stop its DynamoDB Local: the next one on the folder stops the
 * one the old record names, if that pid is DynamoDB Local still (Linux's /proc says). Asked
 * first, as a stage stops its own: a JVM killed outright leaves the SQLite library it unpacked
 * (900 KB) in the temp dir. Killed if it has not stopped within 5 s.
 */
export async function reapOrphan(dataDir: string): Promise<void> {
  const pid = (await readStageRecord(dataDir))?.dynamodbPid;
  if (pid === undefined) return;
  const commandLine = await readFile(`/proc/${String(pid)}/cmdline`, 'utf8').catch(() => '');
  if (!commandLine.includes('DynamoDBLocal')) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && (await isRunning(pid))) await sleep(50);
  if (await isRunning(pid)) process.kill(pid, 'SIGKILL');
}

export const writeStageRecord = (dataDir: string, record: StageRecord): Promise<void> =>
  writeFile(stageRecordPath(dataDir), JSON.stringify(record, null, 2));

export const removeStageRecord = (dataDir: string): Promise<void> =>
  rm(stageRecordPath(dataDir), { force: true });
