/** One stored item, by its key. */
export interface ItemKey {
  readonly partition: string;
  readonly sort: string;
}

/** Every item a user's id names, as erasure finds and removes them. */
export interface UserItems {
  /** The items of the user's partition and of their idempotency partitions. */
  itemsOf(userId: number): Promise<readonly ItemKey[]>;
  /** Deletes these items; throws when any will not go (deleting one that is gone succeeds). */
  deleteItems(items: readonly ItemKey[]): Promise<void>;
}
