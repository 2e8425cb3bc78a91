/** Hands out integer ids that are unique across every container and never reused. */
export interface IdAllocator {
  next(): Promise<number>;
}
