/**
 * The storage round trips of one multipart upload: the real use case (`uploadUserFile`) on the
 * real adapters, against the bench's DynamoDB Local and the object store, each client's `send` counted
 * by command with an SDK middleware. Quotas added a read of the user's usage before any byte
 * is stored (`assertRoom`), and put the usage's change in the transaction that writes the
 * record: one round trip more than before, not more. The bench fails when an upload makes
 * more DynamoDB calls than one over what it made before quotas (the record's transaction, and
 * the id block, reserved once per 50 ids), or more than its one call to S3.
 */
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { DynamoUsageLedger } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { FILE_ID_SEQUENCE } from '#shared/storage/keys.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { uploadUserFile } from '#shared/user-files/upload-user-file.ts';
import { benchStore, type StandInEndpoints } from './bench-store.ts';
import { type Figure, figureLine, FIGURE_HEADER } from './figures.ts';

/** Enough uploads for the id block's writes to show amortised: two blocks of 50 and more. */
const UPLOADS = 120;
/** What a deployed function reserves at once (`fileIds` builder: the allocator's default). */
const ID_BLOCK = 50;
/**
 * DynamoDB calls of one upload before quotas, the id block aside (2026-11-28, the same use
 * case at the commit before them, counted the same way): the record's TransactWriteItems.
 */
const DYNAMODB_CALLS_BEFORE = 1;
/** S3 calls of one upload before quotas: its PutObject. */
const S3_CALLS_BEFORE = 1;

type Counts = Map<string, number>;

/** The calls of one client, by command, into whatever `counts` holds at the time. */
interface Tally {
  counts: Counts;
  /** Every call in order, while set. */
  order?: string[];
}

const count = (tally: Tally, command: string | undefined) => {
  const name = (command ?? 'unknown').replace(/Command$/, '');
  tally.counts.set(name, (tally.counts.get(name) ?? 0) + 1);
  tally.order?.push(name);
};

const total = (counts: Counts) => [...counts.values()].reduce((sum, count) => sum + count, 0);
const listOf = (counts: Counts, per = 1) =>
  [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([command, count]) => `${command} ${per === 1 ? String(count) : (count / per).toFixed(2)}`)
    .join(', ');

export async function benchUploadRoundTrips(
  options: StandInEndpoints,
): Promise<{ report: string; figures: Figure[] }> {
  const store = await benchStore('bench-round-trips', options);
  const { name: table, dynamodb, documents, s3 } = store;
  // Each `send`, by command, as the integration tests count them.
  const dynamoCalls: Tally = { counts: new Map() };
  const s3Calls: Tally = { counts: new Map() };
  dynamodb.middlewareStack.add(
    (next, context) => (args) => {
      count(dynamoCalls, context.commandName);
      return next(args);
    },
    { step: 'initialize', name: 'countDynamoDbCalls' },
  );
  s3.middlewareStack.add(
    (next, context) => (args) => {
      count(s3Calls, context.commandName);
      return next(args);
    },
    { step: 'initialize', name: 'countS3Calls' },
  );
  // As a deployed UploadUserFile builds them (`functions/upload-user-file/handler.ts`).
  const ports = {
    fileIds: new DynamoBlockIdAllocator(documents, table, {
      sequence: FILE_ID_SEQUENCE,
      blockSize: ID_BLOCK,
    }),
    blobs: new S3BlobStore(s3, table),
    userFiles: new DynamoUserFileRepository(documents, table),
    usage: new DynamoUsageLedger(documents, table),
    limits: { files: 10_000, bytes: 10 * 1024 ** 3 },
    scanning: true,
  };
  const userId = 900_001;
  const upload = (i: number) =>
    uploadUserFile(ports, {
      userId,
      name: `round-trip ${String(i)}.bin`,
      type: 'raw_data',
      content: Buffer.alloc(64 * 1024, i),
      contentType: 'application/octet-stream',
    });
  try {
    // The user's first upload: their usage was never counted, so it is counted first.
    const firstOrder: string[] = [];
    dynamoCalls.order = firstOrder;
    s3Calls.order = firstOrder;
    await upload(0);
    delete dynamoCalls.order;
    delete s3Calls.order;
    dynamoCalls.counts = new Map();
    s3Calls.counts = new Map();
    for (let i = 1; i <= UPLOADS; i++) await upload(i);
    // Before quotas the same uploads made their transaction each, and at most one id-block
    // write per block of ids they took (an UpdateItem each). Totals over the same divisor, so
    // that the check compares whole counts.
    const idBlocks = Math.ceil(UPLOADS / ID_BLOCK);
    const before = (DYNAMODB_CALLS_BEFORE * UPLOADS + idBlocks) / UPLOADS;
    const allowed = ((DYNAMODB_CALLS_BEFORE + 1) * UPLOADS + idBlocks) / UPLOADS;
    const dynamoPerUpload = total(dynamoCalls.counts) / UPLOADS;
    const s3PerUpload = total(s3Calls.counts) / UPLOADS;
    const figures: Figure[] = [
      {
        name: 'upload: DynamoDB calls per upload',
        unit: 'calls',
        median: dynamoPerUpload,
        floor: before,
        floorName: 'before quotas: TransactWriteItems, an id block per 50',
        most: allowed,
      },
      {
        name: 'upload: S3 calls per upload',
        unit: 'calls',
        median: s3PerUpload,
        floor: S3_CALLS_BEFORE,
        floorName: 'before quotas: PutObject',
        most: S3_CALLS_BEFORE,
      },
    ];
    return {
      figures,
      report: `
Storage calls of a multipart upload: uploadUserFile on the real adapters, DynamoDB Local and the object store, ${String(UPLOADS)} uploads of one user (id block of ${String(ID_BLOCK)})
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
  per upload, DynamoDB: ${listOf(dynamoCalls.counts, UPLOADS)}; S3: ${listOf(s3Calls.counts, UPLOADS)}
  the user's first upload (usage never counted), in order: ${firstOrder.join(', ')}
`,
    };
  } finally {
    store.destroy();
  }
}
