import type { AdapterSources } from '../storage/adapter-sources.ts';
import { accessTrail } from '../access-trail/adapters/dynamo-access-trail.ts';
import { trailDigests } from '../access-trail/adapters/s3-trail-digests.ts';
import { trailHashes } from '../access-trail/adapters/dynamo-trail-hashes.ts';
import { trailQueries } from '../access-reports/adapters/dynamo-trail-queries.ts';
import { blobs } from '../blobs/adapters/s3-blob-store.ts';
import { chat } from '../notifications/adapters/slack-webhook-channel.ts';
import { dealFiles } from '../deal-files/adapters/dynamo-deal-file-repository.ts';
import { dealRoles } from '../groups/adapters/dynamo-deal-roles.ts';
import { deadLetters } from '../queue/adapters/sqs-message-queue.ts';
import { directUploads } from '../direct-uploads/adapters/dynamo-direct-upload-repository.ts';
import { fileIds } from '../storage/dynamo-block-id-allocator.ts';
import { fileScans } from '../scanning/adapters/dynamo-file-scans.ts';
import { idempotency } from '../storage/idempotency-store.ts';
import { notificationQueue } from '../queue/adapters/sqs-message-queue.ts';
import { notifications } from '../notifications/adapters/dynamo-notification-repository.ts';
import { rateLimits } from '../notifications/adapters/dynamo-token-buckets.ts';
import { realtimeKeys } from '../realtime/adapters/secrets-manager-key-store.ts';
import { usage } from '../usage/adapters/dynamo-usage-ledger.ts';
import { userFiles } from '../user-files/adapters/dynamo-user-file-repository.ts';
import { userItems } from '../removal/adapters/dynamo-user-items.ts';
import type { ServiceAdapters } from './service-adapters.ts';

/**
 * A builder for every adapter of `ServiceAdapters`, for `composeAdapters`: what the local
 * stage and the bench start from. A Lambda entry never imports this module: every module it
 * imports stays in its bundle (their CommonJS SDK imports cannot be shaken out), so an entry
 * imports each builder it needs from its feature's `adapters/` instead.
 */
export const SERVICE_ADAPTER_BUILDERS = {
  userFiles,
  dealFiles,
  dealRoles,
  directUploads,
  notifications,
  fileIds,
  fileScans,
  blobs,
  idempotency,
  notificationQueue,
  deadLetters,
  realtimeKeys,
  chat,
  rateLimits,
  usage,
  userItems,
  accessTrail,
  trailHashes,
  trailDigests,
  trailQueries,
} as const satisfies {
  readonly [K in keyof ServiceAdapters]: (sources: AdapterSources) => ServiceAdapters[K];
};
