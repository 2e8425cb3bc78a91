import type { AccessTrail } from '../access-trail/access-trail.ts';
import type { DigestStore } from '../access-trail/digest-store.ts';
import type { TrailHashes } from '../access-trail/trail-hashes.ts';
import type { TrailQueries } from '../access-reports/trail-queries.ts';
import type { BlobStore, BlobVersions, DownloadSigner, UploadSigner } from '../blobs/blob-store.ts';
import type { HandlerSettings, StorageLimitSetting } from '../config/environment.ts';
import type { DealFileRepository } from '../deal-files/deal-file-repository.ts';
import type { DirectUploadRepository } from '../direct-uploads/direct-upload-repository.ts';
import type { DealRoleReader } from '../groups/deal-roles.ts';
import type { IdempotencyStore } from '../http/idempotency-key.ts';
import type { IdAllocator } from '../domain/file-record.ts';
import type { ChatChannel } from '../notifications/chat-channel.ts';
import type { NotificationRepository } from '../notifications/notification-repository.ts';
import type { TokenBuckets } from '../notifications/token-buckets.ts';
import type { MessageQueue } from '../queue/message-queue.ts';
import type { RealtimeKeyStore } from '../realtime/realtime-key-store.ts';
import type { FileScans } from '../scanning/file-scans.ts';
import type { UsageLedger } from '../usage/usage-ledger.ts';
import type { StorageLimits } from '../usage/usage.ts';
import type { UserFileRepository } from '../user-files/user-file-repository.ts';
import type { UserItems } from '../removal/user-items.ts';

/**
 * Every adapter a function may run on, by the names ports have everywhere. A handler module's
 * `createHandler` takes the ones it needs, composed by `composeAdapters`
 * (`composition-root.ts`): on Lambda from the function's environment and the container's
 * clients; on the local stage, in the CLI and in the bench from their own sources.
 */
export interface ServiceAdapters {
  readonly userFiles: UserFileRepository;
  readonly dealFiles: DealFileRepository;
  readonly dealRoles: DealRoleReader;
  readonly directUploads: DirectUploadRepository;
  readonly notifications: NotificationRepository;
  readonly fileIds: IdAllocator;
  /** Files' malware-scan verdicts. */
  readonly fileScans: FileScans;
  readonly blobs: BlobStore & BlobVersions & UploadSigner & DownloadSigner;
  readonly idempotency: IdempotencyStore;
  readonly notificationQueue: MessageQueue;
  readonly deadLetters: MessageQueue;
  readonly realtimeKeys: RealtimeKeyStore;
  readonly chat: ChatChannel;
  /** Senders' notify allowances and the chat channel's pace. */
  readonly rateLimits: TokenBuckets;
  /** Users' usage against their storage limits. */
  readonly usage: UsageLedger;
  /** Every item of a user's, and whether they were erased. */
  readonly userItems: UserItems;
  /** The access trail: an entry for every access and change, create-only. */
  readonly accessTrail: AccessTrail;
  /** The trail's entries as sealing and verifying read them, hashed. */
  readonly trailHashes: TrailHashes;
  /** The trail's sealed digests, each written once. */
  readonly trailDigests: DigestStore;
  /** The access trail's readers: a deal's pages, a file's entries, a group's export. */
  readonly trailQueries: TrailQueries;
}

/** The storage limits the quota settings say. */
export const storageLimitsOf = (
  settings: Pick<HandlerSettings, StorageLimitSetting>,
): StorageLimits => ({ files: settings.MAX_FILES_PER_USER, bytes: settings.MAX_BYTES_PER_USER });
