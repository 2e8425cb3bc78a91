/**
 * GuardDuty's verdicts on DynamoDB Local: EventBridge delivers them at least once and in any
 * order, and a file's bytes are scanned before its record exists. A repeat or an overtaken
 * event changes nothing; a verdict before its record is thrown back to be delivered again.
 */
import { randomUUID } from 'node:crypto';
import type { GuardDutyScanResultNotificationEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { createHandler } from '#functions/record-scan-verdict/handler.ts';
import { DynamoDealFileRepository } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { DynamoFileScans } from '#shared/scanning/adapters/dynamo-file-scans.ts';
import { DynamoGroupRepository } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import type { ScanResult } from '#shared/domain/file-scan.ts';
import { recordScanVerdict, VerdictBeforeRecord } from '#shared/scanning/record-scan-verdict.ts';
import type { UserFile } from '#shared/user-files/user-file.ts';
import { lambdaContext } from '#test/support/api-events.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, dynamodbEndpoint, s3, s3Endpoint, s3Credentials } = standInClients();
const name = `scans-${randomUUID().slice(0, 8)}`;
const userFiles = new DynamoUserFileRepository(dynamodb, name);
const scans = new DynamoFileScans(dynamodb, name);
const objects = new S3BlobStore(s3, name);
const ports = { scans, objects };

beforeAll(async () => {
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
});

const file = (userId: number, id: number): UserFile => ({
  id,
  userId,
  name: 'deck.pdf',
  type: 'deck',
  createdAt: '2026-11-28T10:00:00.000Z',
  updatedAt: null,
  isArchived: false,
  filesize: 5,
  location: `s3://bucket/users/${userId}/files/${id}`,
  scan: { status: 'pending' },
});

const verdict = (key: string, result: ScanResult, at: string) => ({ objectKey: key, result, at });

describe('recording a verdict', () => {
  it('records it on the user file its object backs', async () => {
    await userFiles.create(file(1, 1));
    const outcome = await recordScanVerdict(
      ports,
      verdict('users/1/files/1', 'NO_THREATS_FOUND', '2026-11-28T10:00:01.000Z'),
    );
    expect(outcome).toEqual({
      kind: 'recorded',
      file: { kind: 'user-file', userId: 1, fileId: 1 },
    });
    expect((await userFiles.get(1, 1))?.scan).toEqual({
      status: 'scanned',
      result: 'NO_THREATS_FOUND',
      at: '2026-11-28T10:00:01.000Z',
    });
  });

  it('changes nothing for a repeated event', async () => {
    await userFiles.create(file(1, 2));
    const event = verdict('users/1/files/2', 'THREATS_FOUND', '2026-11-28T10:00:02.000Z');
    expect((await recordScanVerdict(ports, event)).kind).toBe('recorded');
    const after = await userFiles.get(1, 2);
    expect((await recordScanVerdict(ports, event)).kind).toBe('stale');
    expect(await userFiles.get(1, 2)).toEqual(after);
  });

  it('keeps the newer of an out-of-order pair, whichever comes first', async () => {
    await userFiles.create(file(1, 3));
    await userFiles.create(file(1, 4));
    const older = (key: string) => verdict(key, 'FAILED', '2026-11-28T10:00:03.000Z');
    const newer = (key: string) => verdict(key, 'NO_THREATS_FOUND', '2026-11-28T10:00:09.000Z');
    // In order, then overtaken: the same file in the end.
    await recordScanVerdict(ports, older('users/1/files/3'));
    await recordScanVerdict(ports, newer('users/1/files/3'));
    expect((await recordScanVerdict(ports, newer('users/1/files/4'))).kind).toBe('recorded');
    expect((await recordScanVerdict(ports, older('users/1/files/4'))).kind).toBe('stale');
    const clean = { status: 'scanned', result: 'NO_THREATS_FOUND', at: '2026-11-28T10:00:09.000Z' };
    expect((await userFiles.get(1, 3))?.scan).toEqual(clean);
    expect((await userFiles.get(1, 4))?.scan).toEqual(clean);
  });

  it('throws a verdict whose file is not recorded yet, and writes nothing', async () => {
    // Its bytes are stored: the record comes second.
    await objects.put('users/1/files/5', Buffer.from('bytes'), { contentType: 'text/plain' });
    const event = verdict('users/1/files/5', 'NO_THREATS_FOUND', '2026-11-28T10:00:05.000Z');
    await expect(recordScanVerdict(ports, event)).rejects.toBeInstanceOf(VerdictBeforeRecord);
    expect(await userFiles.get(1, 5)).toBeUndefined();
    // Delivered again once the record is there, it lands.
    await userFiles.create(file(1, 5));
    expect((await recordScanVerdict(ports, event)).kind).toBe('recorded');
  });

  it('drops a verdict whose file and bytes are gone: deleted while it was scanned', async () => {
    const event = verdict('users/1/files/8', 'THREATS_FOUND', '2026-11-28T10:00:08.000Z');
    expect(await recordScanVerdict(ports, event)).toEqual({
      kind: 'gone',
      file: { kind: 'user-file', userId: 1, fileId: 8 },
    });
    expect(await userFiles.get(1, 8)).toBeUndefined();
  });

  it("records a deal file's verdict on the deal file", async () => {
    const groups = new DynamoGroupRepository(dynamodb, name);
    const dealFiles = new DynamoDealFileRepository(dynamodb, name);
    await groups.createGroup({ id: 7, name: 'Fund VII', createdAt: '2026-11-28T10:00:00.000Z' });
    await groups.createDeal({
      groupId: 7,
      id: 3,
      name: 'Acme',
      createdAt: '2026-11-28T10:00:00.000Z',
    });
    await dealFiles.create({
      ...file(1, 6),
      groupId: 7,
      dealId: 3,
      location: 's3://bucket/groups/7/deals/3/files/6',
    });
    await recordScanVerdict(
      ports,
      verdict('groups/7/deals/3/files/6', 'THREATS_FOUND', '2026-11-28T10:00:06.000Z'),
    );
    expect((await dealFiles.get({ groupId: 7, dealId: 3 }, 6))?.scan).toEqual({
      status: 'scanned',
      result: 'THREATS_FOUND',
      at: '2026-11-28T10:00:06.000Z',
    });
  });

  it('ignores a key that holds no file of ours', async () => {
    const outcome = await recordScanVerdict(
      ports,
      verdict(
        'malware-protection-resource-validation-object',
        'NO_THREATS_FOUND',
        '2026-11-28T10:00:07.000Z',
      ),
    );
    expect(outcome).toEqual({ kind: 'not-ours' });
  });
});

describe('the RecordScanVerdict handler', () => {
  const event = (key: string, result: ScanResult): GuardDutyScanResultNotificationEvent => ({
    version: '0',
    id: randomUUID(),
    'detail-type': 'GuardDuty Malware Protection Object Scan Result',
    source: 'aws.guardduty',
    account: '111122223333',
    time: '2026-11-28T11:00:00Z',
    region: 'eu-west-1',
    resources: ['arn:aws:guardduty:eu-west-1:111122223333:malware-protection-plan/x'],
    detail: {
      schemaVersion: '1.0',
      scanStatus: 'COMPLETED',
      resourceType: 'S3_OBJECT',
      s3ObjectDetails: {
        bucketName: 'bucket',
        objectKey: key,
        eTag: 'e',
        versionId: 'v1',
        s3Throttled: false,
      },
      scanResultDetails: { scanResultStatus: result, threats: null },
    },
  });

  it('records the verdict, and fails the event whose record is not there yet', async () => {
    const handler = createHandler({ fileScans: scans, blobs: objects });
    await userFiles.create(file(2, 1));
    await objects.put('users/2/files/2', Buffer.from('bytes'), { contentType: 'text/plain' });
    await handler(event('users/2/files/1', 'THREATS_FOUND'), lambdaContext());
    expect((await userFiles.get(2, 1))?.scan).toMatchObject({ result: 'THREATS_FOUND' });
    await expect(
      handler(event('users/2/files/2', 'NO_THREATS_FOUND'), lambdaContext()),
    ).rejects.toThrow('No file is recorded yet for the scanned object users/2/files/2');
  });
});
