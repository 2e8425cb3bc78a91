import type { Usage } from './usage.ts';

/**
 * Each user's usage. It changes only in the transactions that add or remove what it counts
 * (`UserFileRepository`, `DirectUploadRepository`); this port reads it, gives back what
 * expired reservations held, and recounts it. A user whose usage was never stored (their
 * files predate the ledger) is counted from their items when it is read, and the count is
 * stored by the first write that changes it.
 */
export interface UsageLedger {
  /** The user's usage as it stands; a read writes nothing. */
  read(userId: number): Promise<Usage>;
  /**
   * Gives back the reservations of the user's direct uploads that can no longer be completed
   * at `now`, removing those uploads; how many it gave back.
   */
  releaseExpired(userId: number, now: Date): Promise<number>;
  /**
   * Counts the user's usage again from their items and stores the count when it differs:
   * the usage before (undefined when none was stored) and after.
   */
  recount(userId: number): Promise<{ readonly before: Usage | undefined; readonly after: Usage }>;
}
