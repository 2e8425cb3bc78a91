import type { AccessEntry } from './access-entry.ts';

/**
 * Where entries are written: create-only, every put conditional, so no write ever replaces
 * an entry. A change's own entry goes in the change's transaction instead (its repository's
 * write takes the entry); this port writes the entries that stand alone (a link, a token, a
 * refusal).
 */
export interface AccessTrail {
  /**
   * Writes the entries, a transaction of up to 100 at a time, all of them sent at once.
   * Raises `TrailUnavailable` when they cannot be written: the caller then hands nothing out.
   */
  record(entries: readonly AccessEntry[]): Promise<void>;
  /**
   * Writes a refused request's entries (one for each deal it named, all of one caller and
   * request, stamped at one time) in one of its caller's bounded slots for the minute
   * (`refusalSlot`), whatever the deals: the slot and the entries in one transaction.
   * `slot-taken` when that slot is already taken, and nothing is written. Raises
   * `TrailUnavailable` when they cannot be written.
   */
  recordRefusal(entries: readonly AccessEntry[]): Promise<'recorded' | 'slot-taken'>;
}
