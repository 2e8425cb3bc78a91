import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureBucket, LOCAL_CREDENTIALS, LOCAL_REGION } from '#infra/local/stage/stand-ins.ts';
import { ensureTable } from '#infra/local/dynamodb/dynamodb-local.ts';
import { localLambdaContext } from '#infra/local/lambda/lambda-context.ts';
import { idempotentPerKey } from '#shared/http/idempotency-key.ts';
import { idempotency } from '#shared/storage/idempotency-store.ts';
import { IDEMPOTENT_OPERATIONS } from '#shared/storage/keys.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { cancelDirectUpload } from '#shared/direct-uploads/cancel-direct-upload.ts';
import { completeDirectUpload } from '#shared/direct-uploads/complete-direct-upload.ts';
import { DynamoDirectUploadRepository } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { DynamoUsageLedger } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { uploadUserFile } from '#shared/user-files/upload-user-file.ts';
import { answerLost, failing, storedIn } from '#test/support/faults.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb, s3, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
const dynamoClient = new DynamoDBClient({
  endpoint: dynamodbEndpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
});
const name = `faults-${randomUUID().slice(0, 8)}`;

const fileIds = new DynamoBlockIdAllocator(dynamodb, name, { sequence: 'file', blockSize: 10 });
const blobs = new S3BlobStore(s3, name);
const userFiles = new DynamoUserFileRepository(dynamodb, name);
const directUploads = new DynamoDirectUploadRepository(dynamodb, name);
/** Limits no test here reaches: quotas are tested in quotas.test.ts. */
const room = { usage: new DynamoUsageLedger(dynamodb, name), limits: { files: 1e6, bytes: 1e12 } };

const stored = () => storedIn(dynamodb, s3, name);

const newFile = (userId: number) => ({
  userId,
  name: 'a.pdf',
  type: 'deck' as const,
  content: Buffer.from('bytes'),
  contentType: 'application/pdf',
});

beforeAll(async () => {
  await Promise.all([
    ensureTable(dynamodbEndpoint, name),
    ensureBucket(s3Endpoint, name, s3Credentials),
  ]);
});

describe('ids from the block-reserved counter', () => {
  it('are distinct across concurrent callers and containers, a counter write per block', async () => {
    let writes = 0;
    dynamodb.middlewareStack.add(
      (next, context) => async (args) => {
        if (['UpdateCommand', 'UpdateItemCommand'].includes(context.commandName ?? '')) writes++;
        return next(args);
      },
      { step: 'initialize', name: 'countCounterWrites' },
    );
    const container = () =>
      new DynamoBlockIdAllocator(dynamodb, name, { sequence: 'ids-test', blockSize: 25 });
    const [first, second] = [container(), container()];
    const allocated = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? first : second).next()),
    );
    dynamodb.middlewareStack.remove('countCounterWrites');
    expect(new Set(allocated).size).toBe(200);
    expect(allocated.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect(writes).toBe(8);
  });
});

describe('an upload leaves nothing behind, whichever write fails', () => {
  it('writes no record when the bytes fail to store', async () => {
    const before = await stored();
    await expect(
      uploadUserFile({ ...room, fileIds, blobs: failing(blobs, 'put'), userFiles }, newFile(1)),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
  });

  it('deletes the bytes when the record fails to write', async () => {
    const before = await stored();
    await expect(
      uploadUserFile(
        { ...room, fileIds, blobs, userFiles: failing(userFiles, 'create') },
        newFile(2),
      ),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
  });

  it('completes when the record landed but its answer was lost', async () => {
    const file = await uploadUserFile(
      { ...room, fileIds, blobs, userFiles: answerLost(userFiles, 'create') },
      newFile(4),
    );
    const after = await stored();
    expect(after.items).toContainEqual(expect.objectContaining({ SK: `FILE#${String(file.id)}` }));
    expect(after.objects).toContain(`users/4/files/${String(file.id)}`);
  });

  it('keeps the bytes when neither the write nor the read back can be trusted', async () => {
    const blind = failing(failing(userFiles, 'create'), 'get');
    const before = await stored();
    await expect(
      uploadUserFile({ ...room, fileIds, blobs, userFiles: blind }, newFile(5)),
    ).rejects.toThrow('injected: create failed');
    const after = await stored();
    // Bytes without a record, for reconcile; never a record without bytes.
    expect(after.items).toEqual(before.items);
    expect(after.objects.filter((key) => !before.objects.includes(key))).toEqual([
      expect.stringMatching(/^users\/5\/files\/\d+$/) as unknown,
    ]);
  });
});

describe('an Idempotency-Key repeated while the first request runs', () => {
  it('answers the repeat 409, and a later repeat the first response', async () => {
    let release: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Powertools records the key as in progress before it runs the work: once the work has
    // started, a repeat finds the record.
    let started: () => void = () => undefined;
    const inProgress = new Promise<void>((resolve) => {
      started = resolve;
    });
    let runs = 0;
    const once = idempotentPerKey(
      IDEMPOTENT_OPERATIONS.uploadUserFile,
      async (value: string) => {
        runs++;
        started();
        await running;
        return { value };
      },
      idempotency({ dynamodb: () => dynamoClient, documents: () => dynamodb, TABLE_NAME: name }),
    );
    const call = { userId: 1, key: 'k', fingerprint: () => 'f' };
    const first = once('first', call, localLambdaContext('test', 10_000));
    await inProgress;
    const repeat = once('first', call, localLambdaContext('test', 10_000));
    await expect(repeat).rejects.toMatchObject({
      statusCode: 409,
      detail: 'A request with this Idempotency-Key is still being processed; retry shortly',
    });
    release();
    await expect(first).resolves.toEqual({ value: 'first' });
    await expect(once('first', call, localLambdaContext('test', 10_000))).resolves.toEqual({
      value: 'first',
    });
    expect(runs).toBe(1);
  });
});

describe('a direct upload becomes a record exactly once, or not at all', () => {
  it('records nothing and keeps the upload pending when the transaction fails', async () => {
    const ticket = await startDirectUpload(
      { ...room, fileIds, directUploads, blobs },
      { userId: 4, name: 'n.pdf', type: 'deck', filesize: 5, contentType: 'application/pdf' },
    );
    await blobs.put(ticket.key, Buffer.from('12345'), { contentType: 'application/pdf' });
    const before = await stored();
    await expect(
      completeDirectUpload(
        { directUploads: failing(directUploads, 'complete'), userFiles, blobs },
        4,
        ticket.id,
      ),
    ).rejects.toThrow('injected');
    expect(await stored()).toEqual(before);
    // A retry (Lambda retries the S3 event) completes it.
    const completion = await completeDirectUpload(
      { directUploads, userFiles, blobs },
      4,
      ticket.id,
    );
    expect(completion).toMatchObject({
      file: { id: ticket.id, userId: 4, filesize: 5, name: 'n.pdf' },
      recordedNow: true,
    });
  });

  it('refuses bytes that changed between its read and its copy, by the copy itself', async () => {
    const ticket = await startDirectUpload(
      { ...room, fileIds, directUploads, blobs },
      { userId: 6, name: 'c.pdf', type: 'deck', filesize: 9, contentType: 'application/pdf' },
    );
    await blobs.put(ticket.key, Buffer.from('first'), { contentType: 'application/pdf' });
    const before = await stored();
    // The form writes again after the completer read the object, before its copy.
    const writtenBetween: typeof blobs = new Proxy(blobs, {
      get: (target, property, receiver) =>
        property === 'copy'
          ? async (...args: Parameters<typeof blobs.copy>) => {
              await blobs.put(ticket.key, Buffer.from('changed!!'), {
                contentType: 'application/pdf',
              });
              return blobs.copy(...args);
            }
          : (Reflect.get(target, property, receiver) as unknown),
    });
    await expect(
      completeDirectUpload({ directUploads, userFiles, blobs: writtenBetween }, 6, ticket.id),
    ).rejects.toThrow('The file changed while it was being completed; complete it again');
    // Nothing copied, nothing recorded, the upload pending again.
    expect(await stored()).toEqual(before);
    const completion = await completeDirectUpload(
      { directUploads, userFiles, blobs },
      6,
      ticket.id,
    );
    expect(completion.file).toMatchObject({ id: ticket.id, filesize: 9 });
  });

  it('keeps the object when refusing it fails, so a retry can refuse it', async () => {
    const ticket = await startDirectUpload(
      { ...room, fileIds, directUploads, blobs },
      { userId: 5, name: 'e.pdf', type: 'deck', filesize: 1, contentType: 'application/pdf' },
    );
    await blobs.put(ticket.key, Buffer.alloc(0), { contentType: 'application/pdf' });
    await expect(
      completeDirectUpload(
        { directUploads: failing(directUploads, 'reject'), userFiles, blobs },
        5,
        ticket.id,
      ),
    ).rejects.toThrow('injected');
    expect((await stored()).objects).toContain(ticket.key);
    // The call whose write refused it is told so (it alone counts the refusal); later ones not.
    await expect(
      completeDirectUpload({ directUploads, userFiles, blobs }, 5, ticket.id),
    ).rejects.toThrow(
      expect.objectContaining({ message: 'The uploaded file is empty', refusedNow: true }),
    );
    expect((await stored()).objects).not.toContain(ticket.key);
    await expect(
      completeDirectUpload({ directUploads, userFiles, blobs }, 5, ticket.id),
    ).rejects.toThrow(
      expect.objectContaining({ message: 'The uploaded file is empty', refusedNow: false }),
    );
  });

  it("gives a cancel's claim back when its record will not go, so a retry need not wait", async () => {
    const ticket = await startDirectUpload(
      { ...room, fileIds, directUploads, blobs },
      { userId: 9, name: 'x.pdf', type: 'deck', filesize: 5, contentType: 'application/pdf' },
    );
    await blobs.put(ticket.key, Buffer.from('12345'), { contentType: 'application/pdf' });
    await expect(
      cancelDirectUpload({ directUploads: failing(directUploads, 'cancel'), blobs }, 9, ticket.id),
    ).rejects.toThrow('injected');
    // Sent again at once, it finishes: the claim did not hold the upload for a minute.
    await cancelDirectUpload({ directUploads, blobs }, 9, ticket.id);
    expect(await directUploads.find(9, ticket.id)).toBeUndefined();
    expect(await blobs.head(ticket.key)).toBeUndefined();
  });
});
