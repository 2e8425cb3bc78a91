/**
 * What the console says of a direct upload's bytes: a successful upload, whoever completes
 * it and in whatever order, tells of no discard at INFO; bytes no record will ever name (a
 * form used again after the file was recorded, or after it was refused) are told of.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { DynamoDirectUploadRepository } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { DynamoUsageLedger } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import {
  completeDirectUpload,
  judgeUploadedBytes,
} from '#shared/direct-uploads/complete-direct-upload.ts';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import { logger } from '#shared/logger.ts';
import { storedIn } from '#test/support/faults.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, s3, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
const name = `discards-${randomUUID().slice(0, 8)}`;
const fileIds = new DynamoBlockIdAllocator(dynamodb, name, { sequence: 'file', blockSize: 10 });
const blobs = new S3BlobStore(s3, name);
/** Limits no test here reaches. */
const room = { usage: new DynamoUsageLedger(dynamodb, name), limits: { files: 1e6, bytes: 1e12 } };
const ports = {
  directUploads: new DynamoDirectUploadRepository(dynamodb, name),
  userFiles: new DynamoUserFileRepository(dynamodb, name),
  blobs,
  scanning: false,
};

beforeAll(async () => {
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** The INFO lines the completion code writes, by message (the logger itself is silent here). */
function infoLines() {
  const info = vi.spyOn(logger, 'info');
  return () => info.mock.calls.map(([message]) => message);
}

/** A direct upload whose form has sent `bytes`. */
async function uploaded(userId: number, bytes: string) {
  const ticket = await startDirectUpload(
    { ...room, fileIds, directUploads: ports.directUploads, blobs },
    { userId, name: 'd.pdf', type: 'deck', filesize: bytes.length, contentType: 'application/pdf' },
  );
  await blobs.put(ticket.key, Buffer.from(bytes), { contentType: 'application/pdf' });
  return ticket;
}

const objectKeys = async () => (await storedIn(dynamodb, s3, name)).objects;

describe('a direct upload on the console', () => {
  it('tells of no discard when it succeeds; it tells of bytes a form sends after', async () => {
    const info = infoLines();
    // The S3 event's finalizer alone, then a second delivery of the same event.
    const alone = await uploaded(71, 'alone');
    expect(await judgeUploadedBytes(ports, 71, alone.id)).toMatchObject({
      file: { filesize: 5 },
      recordedNow: true,
    });
    expect(await judgeUploadedBytes(ports, 71, alone.id)).toBe('discarded');
    // The client's complete call racing the finalizer, twice over.
    const raced = await uploaded(72, 'raced');
    const answers = await Promise.all([
      completeDirectUpload(ports, 72, raced.id),
      judgeUploadedBytes(ports, 72, raced.id),
      completeDirectUpload(ports, 72, raced.id),
      judgeUploadedBytes(ports, 72, raced.id),
    ]);
    // One write recorded it, so one completer alone counts it.
    expect(answers.filter((answer) => answer !== 'discarded' && answer.recordedNow)).toHaveLength(
      1,
    );
    expect(info()).toEqual([]);
    expect(await objectKeys()).toEqual([
      `users/71/files/${alone.id}`,
      `users/72/files/${raced.id}`,
    ]);

    // The form used again once the file is recorded: those bytes go, and the console says so.
    await blobs.put(raced.key, Buffer.from('again'), { contentType: 'application/pdf' });
    expect(await judgeUploadedBytes(ports, 72, raced.id)).toBe('discarded');
    expect(info()).toEqual(['Direct upload bytes discarded']);
    expect(await objectKeys()).not.toContain(raced.key);
  });
});
