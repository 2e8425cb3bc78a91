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
   * Writes a refused access's entry in one of its caller's bounded slots for the deal and
   * minute (`refusalSlot`): `slot-taken` when that slot already holds one, and nothing is
   * written. Raises `TrailUnavailable` when it cannot be written.
   */
  recordRefusal(entry: AccessEntry): Promise<'recorded' | 'slot-taken'>;
}
