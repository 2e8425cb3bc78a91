/**
 * Newest-first listings, a page at a time. A position names the last file a page held; the
 * next page starts just after it, wherever files came or went in between.
 */
export interface ListPosition {
  readonly createdAt: string;
  readonly id: number;
}

/** A page of at most `limit` files, after `after` (from the newest when absent). */
interface PageRequest {
  readonly limit: number;
  readonly after?: ListPosition;
}

/** What a listing gives: its files, and where the next page starts if there are more. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next?: ListPosition;
}

/** How far a listing goes, and the signal that abandons it (the function's timeout). */
export interface ListOptions {
  /** One page; every file when absent. */
  readonly page?: PageRequest;
  readonly signal?: AbortSignal;
}

/** The position just after this file. */
export const positionOf = (file: { readonly createdAt: string; readonly id: number }) => ({
  createdAt: file.createdAt,
  id: file.id,
});
