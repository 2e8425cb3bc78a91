import * as z from 'zod';
import { PARTITION_KEY, SORT_KEY, usageKey } from '../../storage/keys.ts';
import type { Usage } from '../../usage/usage.ts';

/**
 * How a user's usage is stored. DynamoDB conditions cannot add, so the item keeps what the
 * limits are held against (`held_*`: files plus reservations) beside the reservations
 * themselves; used is the difference. `version` grows with every change, so a recount can
 * write its result only over the usage it read.
 */
const USAGE_ITEM = z.object({
  [PARTITION_KEY]: z.string(),
  [SORT_KEY]: z.string(),
  entity: z.literal('Usage'),
  held_files: z.number().int(),
  held_bytes: z.number().int(),
  reserved_files: z.number().int(),
  reserved_bytes: z.number().int(),
  version: z.number().int(),
  counted_at: z.string(),
});

export interface StoredUsage {
  readonly usage: Usage;
  readonly version: number;
}

export const fromUsageItem = (item: unknown): StoredUsage => {
  const stored = USAGE_ITEM.parse(item);
  return {
    usage: {
      used: {
        files: stored.held_files - stored.reserved_files,
        bytes: stored.held_bytes - stored.reserved_bytes,
      },
      reserved: { files: stored.reserved_files, bytes: stored.reserved_bytes },
    },
    version: stored.version,
  };
};

/** A usage as counted from the user's items at `countedAt`. */
export const toUsageItem = (
  userId: number,
  usage: Usage,
  version: number,
  countedAt: string,
): z.infer<typeof USAGE_ITEM> => ({
  ...usageKey(userId),
  entity: 'Usage',
  held_files: usage.used.files + usage.reserved.files,
  held_bytes: usage.used.bytes + usage.reserved.bytes,
  reserved_files: usage.reserved.files,
  reserved_bytes: usage.reserved.bytes,
  version,
  counted_at: countedAt,
});
