import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What a running `npm start` records in its data folder, for CLIs and for the next start. */
export interface StageRecord {
  readonly pid: number;
  readonly url: string;
  readonly dynamodbEndpoint: string;
  readonly s3Endpoint: string;
  readonly dynamodbPid?: number;
}

export const stageRecordPath = (dataDir: string): string => join(dataDir, 'local-stage.json');

const isAlive = (pid: number): boolean => {
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
 * A start that was killed outright (SIGKILL) cannot stop its DynamoDB Local; the next start
 * finds it through the record and stops it, so one data folder never has two.
 */
export async function reapOrphans(dataDir: string): Promise<void> {
  const record = await readStageRecord(dataDir);
  const pid = record?.dynamodbPid;
  if (record === undefined || isAlive(record.pid) || pid === undefined || !isAlive(pid)) return;
  let commandLine = '';
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (commandLine.includes('DynamoDBLocal')) process.kill(pid, 'SIGKILL');
}

export async function writeStageRecord(dataDir: string, record: StageRecord): Promise<void> {
  await writeFile(stageRecordPath(dataDir), JSON.stringify(record, null, 2));
}

export async function removeStageRecord(dataDir: string): Promise<void> {
  await rm(stageRecordPath(dataDir), { force: true });
}
