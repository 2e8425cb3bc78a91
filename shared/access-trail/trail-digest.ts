import { createHash } from 'node:crypto';
import * as z from 'zod';

/**
 * A digest of the access trail: the entries of one window of time, each by its key and hash,
 * and the hash of the digest before it, so that an entry changed, removed or added after its
 * window was sealed shows, and so does a digest missing or changed (docs/security.md). As
 * CloudTrail's digest files chain its log files.
 */

/** An entry as a digest seals it: where it is filed, and the hash of everything it holds. */
export interface SealedEntry {
  /** Whose trail it is in: its item's partition key, as stored. */
  readonly scope: string;
  /**
   * Its sort key, as stored. Keys sort by the time they are filed at, and compare with an
   * ISO 8601 instant as text: a window's entries are the keys from its start to its end.
   */
  readonly entry: string;
  /** SHA-256, hex, of its item's canonical JSON (keys sorted, the expiry left out). */
  readonly sha256: string;
}

export interface TrailDigest {
  /** 1 for the first, then one more each. */
  readonly seq: number;
  /** SHA-256, hex, of the previous digest's bytes as stored; null for the first. */
  readonly previousDigestSha256: string | null;
  /** The window, ISO 8601 UTC: entries filed from here (inclusive) … */
  readonly sealedFrom: string;
  /** … to here (exclusive); the next digest starts here. */
  readonly sealedThrough: string;
  /** Sorted by entry key, then scope. */
  readonly entries: readonly SealedEntry[];
}

const HEX_SHA256 = z.string().regex(/^[0-9a-f]{64}$/);
const INSTANT = z.iso.datetime({ precision: 3 });

/** The digest as stored: this JSON, its fields in this order. */
const STORED_DIGEST = z.object({
  seq: z.number().int().positive(),
  previous_digest_sha256: HEX_SHA256.nullable(),
  sealed_from: INSTANT,
  sealed_through: INSTANT,
  entries: z.array(z.object({ scope: z.string(), entry: z.string(), sha256: HEX_SHA256 })),
});

/** SHA-256, hex: an entry's, and a digest's of its bytes as stored. */
export const sha256Hex = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex');

const byKey = (a: SealedEntry, b: SealedEntry): number =>
  a.entry === b.entry ? compareText(a.scope, b.scope) : compareText(a.entry, b.entry);
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The digest of a window: its entries in their sealed order. */
export const newDigest = (digest: TrailDigest): TrailDigest => ({
  ...digest,
  entries: [...digest.entries].sort(byKey),
});

/** The digest's bytes as stored: compact JSON, the digest's own hash is of exactly these. */
export function digestBytes(digest: TrailDigest): Uint8Array {
  const stored: z.input<typeof STORED_DIGEST> = {
    seq: digest.seq,
    previous_digest_sha256: digest.previousDigestSha256,
    sealed_from: digest.sealedFrom,
    sealed_through: digest.sealedThrough,
    entries: digest.entries.map(({ scope, entry, sha256 }) => ({ scope, entry, sha256 })),
  };
  return new TextEncoder().encode(JSON.stringify(stored));
}

/** The digest these bytes hold, or undefined when they are not one. */
export function parseDigest(bytes: Uint8Array): TrailDigest | undefined {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  const parsed = STORED_DIGEST.safeParse(json);
  if (!parsed.success) return undefined;
  const { seq, previous_digest_sha256, sealed_from, sealed_through, entries } = parsed.data;
  return {
    seq,
    previousDigestSha256: previous_digest_sha256,
    sealedFrom: sealed_from,
    sealedThrough: sealed_through,
    entries,
  };
}
