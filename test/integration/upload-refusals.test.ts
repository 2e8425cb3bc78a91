/**
 * Refused direct uploads stay bounded per user (issue 53). A start refused for the quota
 * writes nothing; an upload refused for its bytes gives its reservation back, so no limit
 * bounds how many of those a user makes: only their last ten are kept, in one item outside the
 * `UPLOAD#` range that every usage read and every quota refusal queries. On DynamoDB Local and
 * the object store, with the real use cases; `npm run bench -- refusals` and
 * test/hardening/refused-uploads.test.ts do the same 150 times over HTTP.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { DynamoDirectUploadRepository } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { REFUSALS_KEPT } from '#shared/direct-uploads/adapters/upload-refusals-item.ts';
import {
  completeDirectUpload,
  judgeUploadedBytes,
} from '#shared/direct-uploads/complete-direct-upload.ts';
import { cancelDirectUpload } from '#shared/direct-uploads/cancel-direct-upload.ts';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import { isOutcome, NotFound } from '#shared/domain/outcome.ts';
import { outcomeAsHttpError } from '#shared/http/outcome-response.ts';
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { DynamoUsageLedger } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { userUsage } from '#shared/usage/user-usage.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { storedIn } from '#test/support/faults.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, s3, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
const name = `refusals-${randomUUID().slice(0, 8)}`;
const blobs = new S3BlobStore(s3, name);
const usage = new DynamoUsageLedger(dynamodb, name);
const limits = { files: 5, bytes: 1_000_000 };
const directUploads = new DynamoDirectUploadRepository(dynamodb, name);
const starting = {
  usage,
  limits,
  fileIds: new DynamoBlockIdAllocator(dynamodb, name, { sequence: 'file', blockSize: 50 }),
  directUploads,
  blobs,
};
const completing = {
  directUploads,
  userFiles: new DynamoUserFileRepository(dynamodb, name),
  blobs,
  scanning: false,
};
const DECLARED = 10;

beforeAll(async () => {
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
});

const start = (userId: number) =>
  startDirectUpload(starting, {
    userId,
    name: 'model.xlsx',
    type: 'financials',
    filesize: DECLARED,
    contentType: 'application/octet-stream',
  });

/** What an outcome answers over HTTP: the status and the body's detail. */
const answerOf = (error: unknown) => {
  if (!isOutcome(error)) throw error;
  const http = outcomeAsHttpError(error);
  return { status: http.statusCode, detail: http.detail };
};

const TOO_LARGE = {
  status: 413,
  detail: `The uploaded file is larger than its declared filesize of ${String(DECLARED)} bytes`,
};

/** A started upload whose key got more bytes than declared (a signed PUT takes any). */
async function oversent(userId: number): Promise<number> {
  const ticket = await start(userId);
  await blobs.put(ticket.key, Buffer.alloc(DECLARED + 1, 7), {
    contentType: 'application/octet-stream',
  });
  return ticket.id;
}

/** Completes the upload; its refusal as an HTTP answer. */
const refusalOf = (userId: number, fileId: number) =>
  completeDirectUpload(completing, userId, fileId).then(
    () => expect.fail('the upload was recorded'),
    answerOf,
  );

/** The DynamoDB calls of `work`, by command, and the items they read. */
async function costOf(client: DynamoDBDocumentClient, work: () => Promise<unknown>) {
  const calls: string[] = [];
  let items = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '?');
      const result = await next(args);
      const output = result.output as { ScannedCount?: number; Item?: unknown };
      items += output.ScannedCount ?? (output.Item === undefined ? 0 : 1);
      return result;
    },
    { step: 'initialize', name: 'costOf' },
  );
  try {
    await work();
  } finally {
    client.middlewareStack.remove('costOf');
  }
  return { calls: calls.sort(), items };
}

const usageRead = (userId: number) => costOf(dynamodb, () => userUsage({ usage, limits }, userId));

const itemsOf = async (userId: number) =>
  (await storedIn(dynamodb, s3, name)).items.filter((item) => item.PK === `USER#${String(userId)}`);

const objectsOf = async (userId: number) =>
  (await storedIn(dynamodb, s3, name)).objects.filter((key) =>
    [`uploads/${String(userId)}/`, `users/${String(userId)}/`].some((prefix) =>
      key?.startsWith(prefix),
    ),
  );

describe('refused direct uploads, bounded per user', () => {
  it('keeps a start refused for the quota out of the table altogether', async () => {
    for (let n = 0; n < limits.files; n++) await start(1);
    const before = await storedIn(dynamodb, s3, name);
    for (let n = 0; n < 20; n++) {
      const refused = await start(1).then(() => expect.fail('the start was admitted'), answerOf);
      expect(refused).toEqual({
        status: 403,
        detail: 'Storage quota exceeded: 5 files allowed, 5 in use, 1 more asked',
      });
    }
    expect(await storedIn(dynamodb, s3, name)).toEqual(before);
  });

  it(`keeps only the last ${String(REFUSALS_KEPT)} refused uploads, in one item; a usage read costs what it did with none`, async () => {
    // The same read of a user with none: one upload, started and cancelled, so that their
    // usage is counted and stored as user 2's is.
    await cancelDirectUpload({ directUploads, blobs }, 3, (await start(3)).id);
    const none = await usageRead(3);
    expect(none).toEqual({ calls: ['GetItemCommand', 'QueryCommand'], items: 1 });
    const ids: number[] = [];
    // More refusals than the files limit allows at once: each gave its reservation back.
    for (let n = 0; n < REFUSALS_KEPT + 2; n++) {
      const id = await oversent(2);
      ids.push(id);
      expect(await refusalOf(2, id)).toEqual(TOO_LARGE);
    }
    expect(await usageRead(2)).toEqual(none);
    expect(await userUsage({ usage, limits }, 2)).toMatchObject({
      usage: { used: { files: 0, bytes: 0 }, reserved: { files: 0, bytes: 0 } },
    });
    const items = await itemsOf(2);
    expect(items.map((item) => item.SK).sort()).toEqual(['REFUSED#uploads', 'USAGE']);
    const kept = items.find((item) => item.SK === 'REFUSED#uploads') as {
      refusals: { id: number }[];
    };
    expect(kept.refusals.map((refused) => refused.id)).toEqual(ids.slice(-REFUSALS_KEPT));
    expect(await objectsOf(2)).toEqual([]);
    // Every later completer of a kept refusal is refused alike; a forgotten one is gone.
    const newest = ids.at(-1) ?? 0;
    expect(await refusalOf(2, newest)).toEqual(TOO_LARGE);
    expect(await refusalOf(2, ids[0] ?? 0)).toEqual({ status: 404, detail: 'Not Found' });
    // Bytes a reused form sends to a refused upload go, and leave nothing behind.
    await blobs.put(`uploads/2/${String(newest)}`, Buffer.from('again'), {
      contentType: 'application/octet-stream',
    });
    expect(await judgeUploadedBytes(completing, 2, newest)).toBe('discarded');
    expect(await objectsOf(2)).toEqual([]);
  });

  it('keeps refusals that land at once, and forgets one its owner cancels', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, () => oversent(4)));
    const answers = await Promise.all(ids.map((id) => refusalOf(4, id)));
    expect(answers).toEqual(ids.map(() => TOO_LARGE));
    const [first, ...others] = ids;
    const refused = await directUploads.find(4, first ?? 0);
    expect(refused).toMatchObject({
      id: first,
      status: 'rejected',
      rejection: 'larger_than_declared',
    });
    if (refused === undefined) return;
    expect(await directUploads.cancel(refused, undefined)).toBe(true);
    expect(await directUploads.find(4, first ?? 0)).toBeUndefined();
    const kept = (await itemsOf(4)).find((item) => item.SK === 'REFUSED#uploads') as {
      refusals: { id: number }[];
    };
    expect(kept.refusals.map((entry) => entry.id).sort()).toEqual([...others].sort());
    // The last one cancelled takes the item with it.
    for (const id of others) {
      const left = await directUploads.find(4, id);
      if (left !== undefined) expect(await directUploads.cancel(left, undefined)).toBe(true);
    }
    expect((await itemsOf(4)).map((item) => item.SK)).toEqual(['USAGE']);
    await expect(completeDirectUpload(completing, 4, first ?? 0)).rejects.toThrow(NotFound);
  });
});
