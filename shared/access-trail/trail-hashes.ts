import type { SealedEntry } from './trail-digest.ts';

/** An entry as `access verify` finds it in the trail: sealed or not. */
export interface FoundEntry extends SealedEntry {
  /**
   * Whether the trail's writers made it: its fields are an entry's, its keys the ones they
   * make of them. One that is not was put there by something else.
   */
  readonly asWritten: boolean;
}

/** The access trail's entries as sealing and verifying read them: each by its key, hashed. */
export interface TrailHashes {
  /** Every entry filed from `from` (inclusive) to `through` (exclusive), ISO 8601 instants. */
  filedBetween(from: string, through: string): Promise<SealedEntry[]>;
  /**
   * Every entry the trail holds, however filed (even where no index would find it), each
   * handed to `visit` as it is read.
   */
  forEachEntry(visit: (entry: FoundEntry) => void): Promise<void>;
}
