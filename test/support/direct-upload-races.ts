/**
 * Races on a direct upload, driven through its use cases on DynamoDB Local and the local
 * object store (issue 53): `npm test` runs a few of each (test/integration), the hardening
 * suite a hundred and more (test/hardening).
 *
 * - **Collisions**: the form posted again while the completion runs, with other bytes of the
 *   same size and MD5 (so the same ETag): the record names the bytes stored, or nothing is
 *   recorded. The two files are the public pair of 128-byte blocks whose MD5s collide (Wang and
 *   Yu, "How to Break MD5 and Other Hash Functions", 2005), each followed by one shared tail.
 * - **Cancels**: the owner's DELETE of the id at once with the completion: either the DELETE
 *   wins (nothing left, the reservation given back) or it answers the documented 409 and the
 *   completion's file stands, bytes and all, until a DELETE sent again deletes it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { ensureBucket } from '#infra/local/stage/stand-ins.ts';
import { ensureTable, trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { BlobNotFoundError } from '#shared/blobs/blob-store.ts';
import { versionsOfKey } from '#shared/blobs/object-versions.ts';
import { DynamoDirectUploadRepository } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import {
  type Completion,
  completeDirectUpload,
} from '#shared/direct-uploads/complete-direct-upload.ts';
import { cancelDirectUpload } from '#shared/direct-uploads/cancel-direct-upload.ts';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import { Conflict } from '#shared/domain/outcome.ts';
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { DynamoUsageLedger } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { deleteUserFile } from '#shared/user-files/delete-user-file.ts';
import { postToSignedForm } from './signed-form.ts';
import { standInClients } from './test-stage.ts';

const BLOCKS = [
  'd131dd02c5e6eec4693d9a0698aff95c2fcab58712467eab4004583eb8fb7f89' +
    '55ad340609f4b30283e488832571415a085125e8f7cdc99fd91dbdf280373c5b' +
    'd8823e3156348f5bae6dacd436c919c6dd53e2b487da03fd02396306d248cda0' +
    'e99f33420f577ee8ce54b67080a80d1ec69821bcb6a8839396f9652b6ff72a70',
  'd131dd02c5e6eec4693d9a0698aff95c2fcab50712467eab4004583eb8fb7f89' +
    '55ad340609f4b30283e4888325f1415a085125e8f7cdc99fd91dbd7280373c5b' +
    'd8823e3156348f5bae6dacd436c919c6dd53e23487da03fd02396306d248cda0' +
    'e99f33420f577ee8ce54b67080280d1ec69821bcb6a8839396f965ab6ff72a70',
];
/** MD5 carries a collision of whole 64-byte blocks through any bytes that follow alike. */
const TAIL = Buffer.from('the shared tail of two files that MD5 cannot tell apart\n'.repeat(8));
/** Two files of one size and one MD5, and two SHA-256s. */
export const COLLIDING_FILES = BLOCKS.map((hex) =>
  Buffer.concat([Buffer.from(hex, 'hex'), TAIL]),
) as [Buffer, Buffer];

export const hashOf = (algorithm: string, bytes: Buffer, encoding: 'hex' | 'base64' = 'hex') =>
  createHash(algorithm).update(bytes).digest(encoding);

/** The answer the completion and the DELETE give while the other holds the upload. */
const CHANGED = 'The file changed while it was being completed; complete it again';
const BEING_COMPLETED = 'The upload is being completed; try again';

/** The owner's request, as the access trail records who asked. */
const owner = (userId: number) => ({
  userId,
  requestId: `race-${String(userId)}`,
  sourceIp: '127.0.0.1',
});

/** A table and a bucket of their own, and the ports the races drive. */
export function raceGround(prefix: string) {
  const { dynamodb, s3, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  const blobs = new S3BlobStore(s3, name);
  const directUploads = new DynamoDirectUploadRepository(dynamodb, name);
  // A delete writes its access-trail entry beside it, to the trail's table (ensureTable).
  const userFiles = new DynamoUserFileRepository(dynamodb, name, () => ({
    tableName: trailTableNameOf(name),
    retentionDays: 400,
  }));
  const usage = new DynamoUsageLedger(dynamodb, name);
  /** Limits no race reaches. */
  const limits = { files: 1e6, bytes: 1e12 };
  const fileIds = new DynamoBlockIdAllocator(dynamodb, name, { sequence: 'file', blockSize: 50 });
  return {
    blobs,
    directUploads,
    userFiles,
    usage,
    limits,
    setUp: () =>
      Promise.all([
        ensureTable(dynamodbEndpoint, name),
        ensureBucket(s3Endpoint, name, s3Credentials),
      ]),
    /** A direct upload started by `userId`, its form posted with `bytes`. */
    uploaded: async (userId: number, bytes: Buffer) => {
      const ticket = await startDirectUpload(
        { usage, limits, fileIds, directUploads, blobs },
        {
          userId,
          name: 'model.bin',
          type: 'raw_data',
          filesize: bytes.length,
          contentType: 'application/octet-stream',
        },
      );
      expect(await postToSignedForm(ticket, bytes)).toBe(204);
      return ticket;
    },
  };
}
type RaceGround = ReturnType<typeof raceGround>;

/** The file's record, and the SHA-256 (base64) of the bytes under its key; each if any. */
async function recordAndBytes(ground: RaceGround, userId: number, fileId: number) {
  const record = await ground.userFiles.get(userId, fileId);
  const key = ground.blobs.userFileKey(userId, fileId);
  const stored = await ground.blobs.digest(key).catch((error: unknown) => {
    if (error instanceof BlobNotFoundError) return undefined;
    throw error;
  });
  return { record, stored };
}

/** Runs `count` races `ten` at a time, each on a user of its own from `firstUser`. */
async function inBatches<T>(
  count: number,
  firstUser: number,
  run: (userId: number, n: number) => Promise<T>,
) {
  const results: T[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, (_, i) =>
      run(firstUser + start + i, start + i),
    );
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

/** Where the second post lands: right after the completion's call of that name, or anywhere. */
const MOMENTS = ['head', 'digest', 'copy', 'unsynchronised'] as const;

/** The blob store, with `post` run (and landed) right after its call named `method`. */
function postingAfter(blobs: S3BlobStore, method: string, post: () => Promise<void>) {
  return new Proxy(blobs, {
    get: (target, property, receiver) => {
      const real = Reflect.get(target, property, receiver) as unknown;
      if (property !== method || typeof real !== 'function') return real;
      return async (...args: unknown[]) => {
        const answer: unknown = await (real as (...a: unknown[]) => Promise<unknown>).apply(
          target,
          args,
        );
        await post();
        return answer;
      };
    },
  });
}

/**
 * `count` collision races, a quarter with the second post right after each of the
 * completion's HEAD, digest and copy, a quarter unsynchronised. Each holds that the record's
 * SHA-256 (every `x-checksum-sha256` of the file) names the bytes stored under the file's
 * key, or that the completion was refused with nothing recorded and a later one records the
 * bytes the form holds then. What each race ended in, for the caller to count.
 */
export async function expectCollisionsRecordedRight(
  ground: RaceGround,
  count: number,
  firstUser: number,
) {
  const [first, second] = COLLIDING_FILES;
  const digests = [first, second].map((bytes) => hashOf('sha256', bytes, 'base64'));
  const { directUploads, userFiles, blobs } = ground;
  return inBatches(count, firstUser, async (userId, n) => {
    const moment = MOMENTS[n % MOMENTS.length] ?? 'unsynchronised';
    const ticket = await ground.uploaded(userId, first);
    const postSecond = async () => {
      expect(await postToSignedForm(ticket, second)).toBe(204);
    };
    const ports = { directUploads, userFiles, waitsMs: [] };
    const completing =
      moment === 'unsynchronised'
        ? Promise.all([completeDirectUpload({ ...ports, blobs }, userId, ticket.id), postSecond()])
        : completeDirectUpload(
            { ...ports, blobs: postingAfter(blobs, moment, postSecond) },
            userId,
            ticket.id,
          );
    const outcome = await completing.then(
      () => undefined,
      (error: unknown) => error,
    );
    const { record, stored } = await recordAndBytes(ground, userId, ticket.id);
    if (outcome === undefined) {
      expect(record?.sha256).toBeDefined();
      expect(stored).toBe(record?.sha256);
      expect(digests).toContain(stored);
      return stored === digests[0] ? 'the first recorded' : 'the second recorded';
    }
    // The HTTP layer answers a Conflict 409 with its message as `detail`.
    expect(outcome).toBeInstanceOf(Conflict);
    expect(outcome).toMatchObject({ message: CHANGED });
    expect([record, stored]).toEqual([undefined, undefined]);
    // Completed again: the bytes the form holds now.
    await completeDirectUpload({ ...ports, blobs }, userId, ticket.id);
    const after = await recordAndBytes(ground, userId, ticket.id);
    expect([after.record?.sha256, after.stored]).toEqual([digests[1], digests[1]]);
    return 'refused';
  });
}

/**
 * `count` cancel races: the owner's DELETE of the id and the completion at once. Each holds
 * that no record is left without its bytes and no reservation held, and that the DELETE
 * either deleted everything (no record, no upload, no version of either key, usage 0) or
 * answered the documented 409 with the completion's file intact (its bytes stored, their
 * SHA-256 recorded), which a DELETE sent again then deletes. What each DELETE answered.
 */
export async function expectCancelsRaceCompletions(
  ground: RaceGround,
  count: number,
  firstUser: number,
) {
  const { directUploads, userFiles, blobs, usage, limits } = ground;
  const bytes = COLLIDING_FILES[0];
  const deletePorts = {
    userFiles,
    blobs,
    limits,
    cancelUpload: (userId: number, fileId: number) =>
      cancelDirectUpload({ directUploads, blobs }, userId, fileId),
  };
  const nothingLeft = async (userId: number, fileId: number) => {
    expect(await userFiles.get(userId, fileId)).toBeUndefined();
    expect(await directUploads.find(userId, fileId)).toBeUndefined();
    for (const key of [blobs.directUploadKey(userId, fileId), blobs.userFileKey(userId, fileId)]) {
      expect(await versionsOfKey(blobs, key)).toEqual([]);
    }
    expect(await usage.read(userId)).toEqual({
      used: { files: 0, bytes: 0 },
      reserved: { files: 0, bytes: 0 },
    });
  };
  return inBatches(count, firstUser, async (userId) => {
    const ticket = await ground.uploaded(userId, bytes);
    const [deleted, completed] = await Promise.all([
      deleteUserFile(deletePorts, owner(userId), ticket.id).then(
        () => 204 as const,
        (error: unknown) => error,
      ),
      completeDirectUpload(
        { directUploads, userFiles, blobs, waitsMs: [5, 10, 20] },
        userId,
        ticket.id,
      ).then(
        (completion: Completion) => completion,
        (error: unknown) => error,
      ),
    ]);
    if (deleted === 204) {
      await nothingLeft(userId, ticket.id);
      return 'deleted';
    }
    expect(deleted).toBeInstanceOf(Conflict);
    expect(deleted).toMatchObject({ message: BEING_COMPLETED });
    // The completion's file stands: its record, its bytes, their digest, one file held.
    expect(completed).toMatchObject({ file: { id: ticket.id } });
    const { record, stored } = await recordAndBytes(ground, userId, ticket.id);
    expect(stored).toBe(hashOf('sha256', bytes, 'base64'));
    expect(record?.sha256).toBe(stored);
    expect(await usage.read(userId)).toEqual({
      used: { files: 1, bytes: bytes.length },
      reserved: { files: 0, bytes: 0 },
    });
    // Sent again, the DELETE deletes the file the upload became.
    await deleteUserFile(deletePorts, owner(userId), ticket.id);
    await nothingLeft(userId, ticket.id);
    return 'refused, then deleted';
  });
}
