import type { DealRef } from '../groups/group.ts';
import type { ACCESS_ACTIONS, AccessEntry, TrailScope } from '../access-trail/access-entry.ts';

type AccessAction = (typeof ACCESS_ACTIONS)[number];

/** A stretch of time: `since` included, `until` not; ISO 8601 UTC with milliseconds. */
export interface TrailWindow {
  readonly since?: string;
  readonly until?: string;
}

/** Which entries a reader wants: a window, and the fields they must hold. */
export interface TrailFilter extends TrailWindow {
  readonly fileId?: number;
  /** The acting user. */
  readonly userId?: number;
  /** Any of these actions. */
  readonly actions?: readonly AccessAction[];
  readonly outcome?: AccessEntry['outcome'];
}

/**
 * Where an entry stands in its trail's order, as the store gave it: a page starts just after
 * one. Opaque to everyone else; the trail's key orders by time (docs/data-model.md).
 */
export type TrailPosition = string;

/** An entry, and where it stands: a page cut short after it goes on from there. */
export interface PlacedEntry {
  readonly entry: AccessEntry;
  readonly position: TrailPosition;
}

/** One page of a trail: its entries, and where the next starts while there may be more. */
export interface TrailPage {
  readonly entries: readonly PlacedEntry[];
  readonly next?: TrailPosition;
}

/** A page's size, where it starts, and the signal that abandons it (the function's timeout). */
export interface TrailPageRequest {
  readonly limit: number;
  readonly after?: TrailPosition;
  readonly signal?: AbortSignal;
}

/**
 * How the trail is read (its writers' port is `AccessTrail`). A page reads a bounded number
 * of entries whatever its filter matches: one that matches little in a long trail comes back
 * short, even empty, with a `next`, never late.
 */
export interface TrailQueries {
  /** A deal's entries, newest first: its scope alone, the window in the key, the rest a filter. */
  dealPage(deal: DealRef, filter: TrailFilter, page: TrailPageRequest): Promise<TrailPage>;
  /**
   * A user file's own entries (downloads, renames, archiving, deletion), newest first: all in
   * its owner's trail, theirs or the operator's on their file.
   */
  userFilePage(fileId: number, page: TrailPageRequest): Promise<TrailPage>;
  /**
   * Every entry filed under a file, newest first, that passes the filter: its own actions,
   * and for a user file the deal-room copies made of it (`deal_file.add`).
   */
  fileEntries(
    fileId: number,
    filter: TrailFilter,
    signal?: AbortSignal,
  ): AsyncIterable<AccessEntry>;
  /**
   * Every entry of these trails in the window, oldest first, merged into one stream by the
   * trails' order (time; a refusal, filed by its minute, at that minute's start). Any size:
   * it holds a few pages in memory, whatever it streams.
   */
  entriesOf(
    scopes: readonly TrailScope[],
    window: TrailWindow,
    signal?: AbortSignal,
  ): AsyncIterable<AccessEntry>;
}
