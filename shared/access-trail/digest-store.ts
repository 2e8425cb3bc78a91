/**
 * Where the access trail's digests are kept, by seq: written once each and never replaced,
 * kept locked for the retention (docs/security.md). A digest is its bytes as stored: its own
 * hash is of exactly these.
 */
export interface DigestStore {
  /** The digest of the highest seq stored, or undefined while there is none. */
  latest(): Promise<{ readonly seq: number; readonly bytes: Uint8Array } | undefined>;
  /** Every seq stored, ascending. */
  seqs(): Promise<number[]>;
  /**
   * The seqs whose digest was deleted or written over since it was written (a delete marker,
   * or a version beside it), ascending: none where the store keeps no versions.
   */
  rewritten(): Promise<number[]>;
  /** The digest of this seq as stored, or undefined when there is none. */
  read(seq: number): Promise<Uint8Array | undefined>;
  /** Writes the digest of this seq unless one is there: `taken` then, and nothing written. */
  create(seq: number, bytes: Uint8Array): Promise<'created' | 'taken'>;
}
