import type { AdapterSources } from './adapter-sources.ts';
import { blobs } from './builders/blobs.ts';
import { chat } from './builders/chat.ts';
import { dealFiles } from './builders/deal-files.ts';
import { dealRoles } from './builders/deal-roles.ts';
import { deadLetters } from './builders/dead-letters.ts';
import { directUploads } from './builders/direct-uploads.ts';
import { fileIds } from './builders/file-ids.ts';
import { fileScans } from './builders/file-scans.ts';
import { idempotency } from './builders/idempotency.ts';
import { notificationQueue } from './builders/notification-queue.ts';
import { notifications } from './builders/notifications.ts';
import { rateLimits } from './builders/rate-limits.ts';
import { realtimeKeys } from './builders/realtime-keys.ts';
import { usage } from './builders/usage.ts';
import { userFiles } from './builders/user-files.ts';
import type { ServiceAdapters } from './service-adapters.ts';

/**
 * A builder for every adapter of `ServiceAdapters`, for `composeAdapters`: what the local
 * stage and the bench start from. A Lambda entry never imports this module: every module it
 * imports stays in its bundle (their CommonJS SDK imports cannot be shaken out), so an entry
 * imports each builder it needs from `./builders/` instead.
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
} as const satisfies {
  readonly [K in keyof ServiceAdapters]: (sources: AdapterSources) => ServiceAdapters[K];
};
