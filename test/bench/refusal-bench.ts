/**
 * What a usage read costs after a user's refusals (issue 53): 150 starts refused for the quota
 * (a user at a 5-file limit), and 150 uploads refused for their bytes (each gives its
 * reservation back, so the limit never stops them). The real use cases on the real adapters,
 * against the bench's DynamoDB Local and object store, every DynamoDB `send` counted by an SDK
 * middleware, as the integration tests count them. Each read is held to the same read of a
 * user with none: the same calls, and no more items read (the Query's `ScannedCount`, which
 * is what DynamoDB bills, filter or not; a GetItem's one item). Its time is reported.
 */
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { DynamoDirectUploadRepository } from '#shared/direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import {
  completeDirectUpload,
  UploadRefused,
} from '#shared/direct-uploads/complete-direct-upload.ts';
import { cancelDirectUpload } from '#shared/direct-uploads/cancel-direct-upload.ts';
import { startDirectUpload } from '#shared/direct-uploads/start-direct-upload.ts';
import { DynamoBlockIdAllocator } from '#shared/storage/dynamo-block-id-allocator.ts';
import { FILE_ID_SEQUENCE } from '#shared/storage/keys.ts';
import { DynamoUsageLedger } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { QuotaExceeded } from '#shared/usage/usage.ts';
import { userUsage } from '#shared/usage/user-usage.ts';
import { DynamoUserFileRepository } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { logger } from '#shared/logger.ts';
import { benchStore, type StandInEndpoints } from './bench-store.ts';
import { type Figure, figureLine, FIGURE_HEADER, spreadOf, timed } from './figures.ts';

/** The count: 150 refusals in 7.5 s by a user with a 5-file limit. */
const REFUSALS = 150;
const LIMITS = { files: 5, bytes: 1_000_000 };
const DECLARED = 10;
/** Reads timed per user, taking turns. */
const READS = 50;

interface Cost {
  readonly calls: number;
  readonly items: number;
}

export async function benchRefusals(
  options: StandInEndpoints,
): Promise<{ report: string; figures: Figure[] }> {
  const { name, dynamodb, documents, s3, destroy } = await benchStore('bench-refusals', options);
  const counted = { calls: 0, items: 0 };
  dynamodb.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as { ScannedCount?: number; Item?: unknown };
      counted.calls += 1;
      counted.items += output.ScannedCount ?? (output.Item === undefined ? 0 : 1);
      return result;
    },
    { step: 'initialize', name: 'countDynamoDbCalls' },
  );
  // As the deployed StartDirectUpload, CompleteDirectUpload and GetUserUsage build them.
  const blobs = new S3BlobStore(s3, name);
  const usage = new DynamoUsageLedger(documents, name);
  const directUploads = new DynamoDirectUploadRepository(documents, name);
  const starting = {
    usage,
    limits: LIMITS,
    fileIds: new DynamoBlockIdAllocator(documents, name, {
      sequence: FILE_ID_SEQUENCE,
      blockSize: 50,
    }),
    directUploads,
    blobs,
  };
  const completing = {
    directUploads,
    userFiles: new DynamoUserFileRepository(documents, name),
    blobs,
  };
  const start = (userId: number) =>
    startDirectUpload(starting, {
      userId,
      name: 'model.xlsx',
      type: 'financials',
      filesize: DECLARED,
      contentType: 'application/octet-stream',
    });
  const refusedBy = async (
    work: () => Promise<unknown>,
    refusal: new (...args: never[]) => Error,
  ) => {
    try {
      await work();
    } catch (error) {
      if (error instanceof refusal) return;
      throw error;
    }
    throw new Error('a refusal was admitted');
  };
  const costOf = async (userId: number): Promise<Cost> => {
    const before = { ...counted };
    await userUsage({ usage, limits: LIMITS }, userId);
    return { calls: counted.calls - before.calls, items: counted.items - before.items };
  };
  // Each refusal logs a warning and a discard, as deployed; 150 of them say nothing here.
  const level = logger.getLevelName();
  logger.setLogLevel('SILENT');
  try {
    // A user with none: one upload started and cancelled, so their usage is stored.
    const quiet = 1;
    await cancelDirectUpload({ directUploads, blobs }, quiet, (await start(quiet)).id);
    // At the files limit with waiting uploads, and the same user's twin with 150 starts refused.
    const [full, fullRefused] = [2, 3];
    for (const userId of [full, fullRefused]) {
      for (let n = 0; n < LIMITS.files; n++) await start(userId);
    }
    for (let n = 0; n < REFUSALS; n++) await refusedBy(() => start(fullRefused), QuotaExceeded);
    // 150 uploads refused for their bytes: more than declared landed under the form's key.
    const oversent = 4;
    for (let n = 0; n < REFUSALS; n++) {
      const ticket = await start(oversent);
      await blobs.put(ticket.key, Buffer.alloc(DECLARED + 1, 7), {
        contentType: 'application/octet-stream',
      });
      await refusedBy(() => completeDirectUpload(completing, oversent, ticket.id), UploadRefused);
    }
    const costs = {
      quiet: await costOf(quiet),
      full: await costOf(full),
      fullRefused: await costOf(fullRefused),
      oversent: await costOf(oversent),
    };
    const times = { quiet: [] as number[], oversent: [] as number[] };
    for (let round = 0; round < READS; round++) {
      times.quiet.push(await timed(() => costOf(quiet)));
      times.oversent.push(await timed(() => costOf(oversent)));
    }
    const held = (label: string, cost: Cost, floor: Cost, floorName: string): Figure[] => [
      {
        name: `usage read, ${label}: calls`,
        unit: 'calls',
        median: cost.calls,
        floor: floor.calls,
        floorName,
        most: floor.calls,
      },
      {
        name: `usage read, ${label}: items`,
        unit: 'items',
        median: cost.items,
        floor: floor.items,
        floorName,
        most: floor.items,
      },
    ];
    const quietTimes = spreadOf(times.quiet);
    const figures: Figure[] = [
      ...held('150 refused uploads', costs.oversent, costs.quiet, 'a user with none'),
      ...held('150 refused starts', costs.fullRefused, costs.full, 'at the limit, none refused'),
      {
        name: 'usage read, 150 refused uploads',
        unit: 'ms',
        ...spreadOf(times.oversent),
        floor: quietTimes.median,
        floorName: 'the same read of a user with none',
      },
    ];
    return {
      figures,
      report: `
A usage read after refusals: userUsage on the real adapters, DynamoDB Local, ${String(REFUSALS)} refused starts (a ${String(LIMITS.files)}-file limit) and ${String(REFUSALS)} uploads refused for their bytes; ${String(READS)} timed reads each
${FIGURE_HEADER}
${figures.map(figureLine).join('\n')}
`,
    };
  } finally {
    logger.setLogLevel(level);
    destroy();
  }
}
