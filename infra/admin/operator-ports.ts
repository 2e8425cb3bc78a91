import { trailHashes } from '#shared/access-trail/adapters/dynamo-trail-hashes.ts';
import { trailDigests } from '#shared/access-trail/adapters/s3-trail-digests.ts';
import { trailQueries } from '#shared/access-reports/adapters/dynamo-trail-queries.ts';
import { blobs, S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { dealFiles } from '#shared/deal-files/adapters/dynamo-deal-file-repository.ts';
import { DynamoGroupRepository } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { trailTableOf } from '#shared/access-trail/adapters/access-entry-item.ts';
import { awsStorage } from '#shared/reconcile/adapters/aws-reconcile-storage.ts';
import { userItems } from '#shared/removal/adapters/dynamo-user-items.ts';
import { fileScans } from '#shared/scanning/adapters/dynamo-file-scans.ts';
import { S3ScannedObjects } from '#shared/scanning/adapters/s3-scanned-objects.ts';
import { fileIdsInBlocksOf } from '#shared/storage/dynamo-block-id-allocator.ts';
import { usage } from '#shared/usage/adapters/dynamo-usage-ledger.ts';
import { userFiles } from '#shared/user-files/adapters/dynamo-user-file-repository.ts';
import { composeAdapters } from '#shared/wiring/composition-root.ts';
import type { StageTarget } from './stage-target.ts';

/**
 * The repositories and stores a command works through, on the chosen stage: the service's
 * adapters from the composition root, each built when a command first takes it, and those
 * only the operator needs.
 */
export function portsOn(target: StageTarget) {
  return composeAdapters(target.sources, {
    dealFiles,
    userFiles,
    blobs,
    // One command takes one id: a block of one wastes none.
    fileIds: fileIdsInBlocksOf(1),
    realtimeKeys: () => target.realtimeKeys(),
    groups: (sources: StageTarget['sources']) =>
      new DynamoGroupRepository(sources.documents(), sources.TABLE_NAME, () =>
        trailTableOf(sources),
      ),
    userItems,
    storage: ({ documents, s3, TABLE_NAME, BUCKET_NAME }: StageTarget['sources']) =>
      awsStorage({ dynamodb: documents(), tableName: TABLE_NAME, s3: s3(), bucket: BUCKET_NAME }),
    fileScans,
    scannedObjects: async ({ BUCKET_NAME }: StageTarget['sources']) =>
      new S3ScannedObjects(await target.releaser(), BUCKET_NAME),
    scanning: () => target.scanning,
    operator: () => target.operator(),
    usage,
    trailQueries,
    limits: () => target.limits(),
    trailHashes,
    trailDigests,
    // The stage's own: its first digest starts a retention ago, and verify expects older gone.
    trailRetentionDays: ({ ACCESS_TRAIL_RETENTION_DAYS }: StageTarget['sources']) =>
      ACCESS_TRAIL_RETENTION_DAYS,
    // Reads every file's object: on a stage that scans, as the releaser, the one principal
    // besides GuardDuty's the bucket lets read a held file.
    digests: async ({ s3, BUCKET_NAME }: StageTarget['sources']) =>
      new S3BlobStore(target.scanning ? await target.releaser() : s3(), BUCKET_NAME),
  });
}

/** The ports every command's run takes. */
export type OperatorPorts = ReturnType<typeof portsOn>;
