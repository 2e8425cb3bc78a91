/** What an item of a user's is, as erasure counts it. */
export type UserItemKind =
  | 'file'
  | 'pending-upload'
  | 'notification'
  | 'idempotency-record'
  /** An item of the user's of no kind above: their notify allowance, their last refusals. */
  | 'other';

/** One stored item: what it is, and its key, which only the store reads. */
export interface UserItem {
  readonly kind: UserItemKind;
  readonly partition: string;
  readonly sort: string;
}

/** Every item a user's id names, as erasure finds and removes them. */
export interface UserItems {
  /** The user's own items and their idempotency records, but for the erasure marker. */
  itemsOf(userId: number): Promise<readonly UserItem[]>;
  /** Deletes these items; throws when any will not go (deleting one that is gone succeeds). */
  deleteItems(items: readonly UserItem[]): Promise<void>;
  /**
   * Marks the user erased, for good: from then on every write that would create an item of
   * theirs refuses (AccountErased). The marker is no item `itemsOf` returns.
   */
  markErased(userId: number, at: Date): Promise<void>;
  /** Whether the user was erased: their marker is there (a strongly consistent read). */
  isErased(userId: number): Promise<boolean>;
}
