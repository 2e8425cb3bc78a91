import type { DigestStore } from './digest-store.ts';
import {
  digestBytes,
  newDigest,
  parseDigest,
  sha256Hex,
  type TrailDigest,
} from './trail-digest.ts';
import type { TrailHashes } from './trail-hashes.ts';

/** How often the sealer runs on a deployed stage (its schedule). */
export const SEAL_PERIOD_MINUTES = 5;

/**
 * How far behind now a seal ends, so that no entry still being written falls behind it: an
 * entry is stamped before it is written, at most a writer's timeout before (30 s; the infra
 * tests hold every writer to 60 s), and a refusal's key files it at the start of its minute
 * (up to 60 s earlier); the rest is margin, the index's lag among it.
 */
export const SEAL_GRACE_SECONDS = 180;

const DAY_MS = 86_400_000;

export interface SealOptions {
  readonly now?: () => Date;
  /** The stage's retention: the first digest starts this long ago, the oldest entry kept. */
  readonly retentionDays: number;
  /** Over SEAL_GRACE_SECONDS: 0 only where no entry is being written. */
  readonly graceSeconds?: number;
}

/** What one seal did. */
export type SealResult =
  /** A digest of the window since the last one. */
  | { readonly kind: 'sealed'; readonly digest: TrailDigest }
  /** Nothing new to seal: the last digest ends later than now less the grace. */
  | { readonly kind: 'up-to-date'; readonly sealedThrough: string }
  /** Another seal wrote this seq first (two at once): nothing written, nothing lost. */
  | { readonly kind: 'sealed-by-another'; readonly seq: number };

/**
 * Seals the entries filed since the last digest (or, for the first, since the retention's
 * start) up to now less the grace, into the next digest, chained to the last one's hash. Its
 * progress is the last digest itself: no other state. A last digest that cannot be read stops
 * it (our fault, for an operator: `access verify` says more); the chain is never restarted.
 */
export async function sealAccessTrail(
  ports: { readonly trail: TrailHashes; readonly digests: DigestStore },
  options: SealOptions,
): Promise<SealResult> {
  const now = (options.now?.() ?? new Date()).getTime();
  const latest = await ports.digests.latest();
  const previous = latest === undefined ? undefined : parseDigest(latest.bytes);
  if (latest !== undefined && previous?.seq !== latest.seq) {
    throw new Error(`Digest ${String(latest.seq)} cannot be read: the chain cannot go on`);
  }
  const sealedFrom = previous?.sealedThrough ?? isoAt(now - options.retentionDays * DAY_MS);
  const sealedThrough = isoAt(now - (options.graceSeconds ?? SEAL_GRACE_SECONDS) * 1000);
  if (sealedThrough <= sealedFrom) return { kind: 'up-to-date', sealedThrough: sealedFrom };
  const digest = newDigest({
    seq: (previous?.seq ?? 0) + 1,
    previousDigestSha256: latest === undefined ? null : sha256Hex(latest.bytes),
    sealedFrom,
    sealedThrough,
    entries: await ports.trail.filedBetween(sealedFrom, sealedThrough),
  });
  const written = await ports.digests.create(digest.seq, digestBytes(digest));
  return written === 'created'
    ? { kind: 'sealed', digest }
    : { kind: 'sealed-by-another', seq: digest.seq };
}

const isoAt = (ms: number): string => new Date(ms).toISOString();
