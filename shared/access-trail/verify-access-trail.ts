import type { DigestStore } from './digest-store.ts';
import { parseDigest, sha256Hex, type SealedEntry, type TrailDigest } from './trail-digest.ts';
import type { TrailHashes } from './trail-hashes.ts';

/**
 * How far past now an entry may be filed before it is a finding: writers' clocks, not ours.
 */
const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
/** Digests read at once. */
const READS_AT_ONCE = 32;

export interface VerifyOptions {
  readonly now?: () => Date;
  /** The stage's retention: a sealed entry older than this is expected gone (its TTL). */
  readonly retentionDays: number;
  /** Findings about digests and entries before this ISO 8601 instant are not reported. */
  readonly since?: string;
}

/** An entry a finding is about: the digest that sealed it, where there is one. */
export interface EntryFinding {
  readonly scope: string;
  readonly entry: string;
  readonly seq?: number;
}

/** What `access verify` found: the findings, then what it checked. */
export interface VerifyReport {
  /** A seq below the highest that the store does not hold. */
  readonly missingDigests: readonly number[];
  /** A digest deleted or written over since it was written (a store that keeps versions). */
  readonly rewrittenDigests: readonly number[];
  /** A digest whose bytes are not a digest of its seq. */
  readonly unreadableDigests: readonly number[];
  /** A digest whose previous hash or window does not follow the digest before it. */
  readonly brokenLinks: readonly number[];
  /** Sealed, and changed since. */
  readonly altered: readonly EntryFinding[];
  /** Sealed, and gone before its retention ended. */
  readonly removed: readonly EntryFinding[];
  /**
   * Sealed by no digest, and in a sealed window, or filed in the future, or not as the
   * trail's writers make an entry.
   */
  readonly inserted: readonly EntryFinding[];
  /** Digests the store holds. */
  readonly digests: number;
  /** The sealed span: from the first digest's start to the last one's end. */
  readonly sealedFrom: string | null;
  readonly sealedThrough: string | null;
  /** Sealed entries found unchanged. */
  readonly entriesVerified: number;
  /** Sealed entries gone after their retention, as expected. */
  readonly entriesExpired: number;
  /** Entries in the window of a digest missing or unreadable: nothing to check them against. */
  readonly entriesUnverifiable: number;
  /** Entries filed since the last digest: protected once the next seal lists them. */
  readonly notYetSealed: number;
  readonly clean: boolean;
}

/** A readable digest: its window, and the hash of its bytes (what the next one names). */
interface ReadDigest {
  readonly digest: TrailDigest;
  readonly sha256: string;
}

/**
 * Recomputes the chain: every digest present (no seq missing, none deleted or written over,
 * each naming the hash of the one before and starting where it ended); every entry a digest
 * sealed present and unchanged, or gone after its retention; every entry in a sealed window
 * sealed. Keys and instants compare as text: a window holds the keys from its start to its end.
 */
export async function verifyAccessTrail(
  ports: { readonly trail: TrailHashes; readonly digests: DigestStore },
  options: VerifyOptions,
): Promise<VerifyReport> {
  const now = (options.now?.() ?? new Date()).getTime();
  const since = options.since ?? '';
  const expiredBefore = new Date(now - options.retentionDays * DAY_MS).toISOString();
  const futureAfter = new Date(now + CLOCK_SKEW_MS).toISOString();
  const { held, read, missing, unreadable } = await readChain(ports.digests);
  const windows = [...read.values()].map((r) => r.digest);
  // A digest's window ends where the next one starts: a missing one's, where the next read starts.
  const windowEnd = (seq: number) =>
    read.get(seq)?.digest.sealedThrough ?? windows.find((d) => d.seq > seq)?.sealedFrom;
  const afterSince = (seq: number) => {
    const end = windowEnd(seq);
    return end === undefined || end > since;
  };

  const brokenLinks = windows.filter((digest) => {
    const before = read.get(digest.seq - 1);
    if (digest.seq === 1) return digest.previousDigestSha256 !== null;
    if (before === undefined) return false; // missing or unreadable: said so already
    return (
      digest.previousDigestSha256 !== before.sha256 ||
      digest.sealedFrom !== before.digest.sealedThrough
    );
  });

  const sealed = new Map<string, { readonly seq: number; readonly sha256: string }>();
  for (const digest of windows) {
    for (const { scope, entry, sha256 } of digest.entries) {
      sealed.set(keyOf({ scope, entry }), { seq: digest.seq, sha256 });
    }
  }
  const first = windows[0];
  const last = windows.at(-1);
  const altered: EntryFinding[] = [];
  const inserted: EntryFinding[] = [];
  const found = new Set<string>();
  let [verified, unverifiable, notYetSealed] = [0, 0, 0];
  await ports.trail.forEachEntry((entry) => {
    const key = keyOf(entry);
    const seal = sealed.get(key);
    if (seal !== undefined) {
      found.add(key);
      if (seal.sha256 === entry.sha256) verified += 1;
      else if (entry.entry >= since) altered.push({ ...at(entry), seq: seal.seq });
      return;
    }
    if (entry.entry < since) return;
    if (!entry.asWritten || entry.entry > futureAfter) {
      inserted.push(at(entry));
    } else if (last === undefined || entry.entry >= last.sealedThrough) {
      notYetSealed += 1;
    } else if (first?.seq === 1 && entry.entry < first.sealedFrom) {
      // Before the first digest's window, which began a retention before the first seal:
      // expired, and still there until DynamoDB's TTL takes it.
      return;
    } else if (windowOf(windows, entry.entry) !== undefined) {
      inserted.push(at(entry));
    } else {
      unverifiable += 1;
    }
  });

  const removed: EntryFinding[] = [];
  let expired = 0;
  for (const [key, { seq }] of sealed) {
    const entry = entryOf(key);
    if (found.has(key) || entry.entry < since) continue;
    if (entry.entry < expiredBefore) expired += 1;
    else removed.push({ ...entry, seq });
  }

  const missingDigests = missing.filter(afterSince);
  const rewrittenDigests = (await ports.digests.rewritten()).filter(afterSince);
  const unreadableDigests = unreadable.filter(afterSince);
  const broken = brokenLinks.map((d) => d.seq).filter(afterSince);
  const digestFindings = [missingDigests, rewrittenDigests, unreadableDigests, broken];
  const findings = [...digestFindings, altered, removed, inserted];
  return {
    missingDigests,
    rewrittenDigests,
    unreadableDigests,
    brokenLinks: broken,
    altered,
    removed,
    inserted,
    digests: held,
    sealedFrom: first?.sealedFrom ?? null,
    sealedThrough: last?.sealedThrough ?? null,
    entriesVerified: verified,
    entriesExpired: expired,
    entriesUnverifiable: unverifiable,
    notYetSealed,
    clean: findings.every((list) => list.length === 0),
  };
}

/**
 * Every digest the store holds, read some at a time: those that are digests of their seq, in
 * seq order; the seqs below the highest that it does not hold; those it holds that are not.
 */
async function readChain(store: DigestStore) {
  const seqs = await store.seqs();
  const read = new Map<number, ReadDigest>();
  const unreadable: number[] = [];
  for (let start = 0; start < seqs.length; start += READS_AT_ONCE) {
    const batch = seqs.slice(start, start + READS_AT_ONCE);
    const bytes = await Promise.all(batch.map((seq) => store.read(seq)));
    batch.forEach((seq, i) => {
      const stored = bytes[i];
      const digest = stored === undefined ? undefined : parseDigest(stored);
      if (stored === undefined || digest?.seq !== seq) unreadable.push(seq);
      else read.set(seq, { digest, sha256: sha256Hex(stored) });
    });
  }
  const held = new Set(seqs);
  const highest = seqs.at(-1) ?? 0;
  const missing = Array.from({ length: highest }, (_, i) => i + 1).filter((seq) => !held.has(seq));
  return { held: seqs.length, read, missing, unreadable };
}

/** The digest whose window holds this key, if a readable one does. */
function windowOf(windows: readonly TrailDigest[], key: string): TrailDigest | undefined {
  let [low, high] = [0, windows.length - 1];
  while (low <= high) {
    const middle = (low + high) >> 1;
    const digest = windows[middle];
    if (digest === undefined) return undefined;
    if (key < digest.sealedFrom) high = middle - 1;
    else if (key >= digest.sealedThrough) low = middle + 1;
    else return digest;
  }
  return undefined;
}

/** Scope and entry key as one map key: a newline is in neither. */
const keyOf = ({ scope, entry }: Pick<SealedEntry, 'scope' | 'entry'>): string =>
  `${scope}\n${entry}`;
const entryOf = (key: string): EntryFinding => {
  const [scope = '', entry = ''] = key.split('\n');
  return { scope, entry };
};
const at = ({ scope, entry }: Pick<SealedEntry, 'scope' | 'entry'>): EntryFinding => ({
  scope,
  entry,
});
