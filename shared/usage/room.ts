import type { UsageLedger } from './usage-ledger.ts';
import { QuotaExceeded, quotaRefusal, type Storage, type StorageLimits } from './usage.ts';

/** What a use case needs to hold a user to their limits. */
export interface RoomPorts {
  readonly usage: Pick<UsageLedger, 'read' | 'releaseExpired'>;
  readonly limits: StorageLimits;
  readonly now?: () => Date;
}

/**
 * Runs `write`, and once more when it was refused for quota while reservations that can no
 * longer be completed held some of the user's room: those are given back first. A
 * reservation's expiry is seen when it matters, so no sweeper has to run on a timer.
 */
export async function withExpiredReleased<T>(
  ports: RoomPorts,
  userId: number,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof QuotaExceeded)) throw error;
    const released = await ports.usage.releaseExpired(userId, ports.now?.() ?? new Date());
    if (released === 0) throw error;
    return write();
  }
}

/**
 * Refuses `asked` (QuotaExceeded) unless the user's usage has room for it now: a check before
 * bytes are stored, so a full account stores nothing. The write that records the file holds
 * the limits again, in its own transaction, against what others did meanwhile.
 */
export const assertRoom = (ports: RoomPorts, userId: number, asked: Storage): Promise<void> =>
  withExpiredReleased(ports, userId, async () => {
    const refusal = quotaRefusal(await ports.usage.read(userId), ports.limits, asked);
    if (refusal !== undefined) throw refusal;
  });
