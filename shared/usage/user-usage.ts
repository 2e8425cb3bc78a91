import type { UsageLedger } from './usage-ledger.ts';
import type { StorageLimits, Usage } from './usage.ts';

/** A user's usage beside the limits it is held to. */
export interface UsageReport {
  readonly usage: Usage;
  readonly limits: StorageLimits;
}

/**
 * GET /api/v1/user/me/usage (extension): what the caller's files and pending direct uploads
 * hold, and what they may. Reservations that can no longer be completed are given back
 * first, so what it reports is what the next upload is held to.
 */
export async function userUsage(
  ports: {
    readonly usage: Pick<UsageLedger, 'read' | 'releaseExpired'>;
    readonly limits: StorageLimits;
    readonly now?: () => Date;
  },
  userId: number,
): Promise<UsageReport> {
  await ports.usage.releaseExpired(userId, ports.now?.() ?? new Date());
  return { usage: await ports.usage.read(userId), limits: ports.limits };
}
