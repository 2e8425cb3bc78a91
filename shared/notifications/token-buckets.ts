/**
 * Token buckets: a sender's notify allowance, and the chat channel's pace. A bucket holds at
 * most `burst` tokens and gains `perSecond` of them a second; each admitted call spends one.
 *
 * A bucket is kept as one number, the time it is full again (`fullAt`), the "virtual
 * scheduling" form of the generic cell rate algorithm, which admits exactly what a token
 * bucket admits: at time `t` it holds `burst - max(0, fullAt - t) / interval` tokens. A take
 * moves `fullAt` one interval on, so a store can spend a token with one conditional
 * increment, and concurrent callers cannot spend more than there is.
 */
export interface BucketRule {
  /** Tokens gained a second: the steady rate. */
  readonly perSecond: number;
  /** Tokens a full bucket holds: how many calls may come at once after a quiet spell. */
  readonly burst: number;
}

/** Whether a take got its token; if not, how long until the bucket has one. */
export type Admission =
  { readonly admitted: true } | { readonly admitted: false; readonly retryAfterMs: number };

/** Which bucket: one per sender for notify, one for the chat channel. */
export type BucketName =
  { readonly kind: 'notify'; readonly userId: number } | { readonly kind: 'chat-channel' };

/** Where buckets are kept, shared by every container. */
export interface TokenBuckets {
  /**
   * Spends one token of the bucket at `at`, or, when it has none, spends nothing and says
   * how long until it has one. However many callers take at once, no more are admitted than
   * the rule allows. A sender's bucket takes nothing once they are erased (AccountErased).
   */
  take(bucket: BucketName, rule: BucketRule, at: Date): Promise<Admission>;
  /** Admits nothing from the bucket before `until` (a channel's own Retry-After). */
  holdUntil(bucket: BucketName, rule: BucketRule, until: Date): Promise<void>;
}

/** The time between two tokens. */
export const intervalMs = (rule: BucketRule): number => 1000 / rule.perSecond;

/** How far `fullAt` may run ahead of now while a token is left: the burst less one. */
export const toleranceMs = (rule: BucketRule): number => (rule.burst - 1) * intervalMs(rule);

/** From `atMs`, how long until a bucket full again at `fullAtMs` has a whole token (0: now). */
export const waitForTokenMs = (fullAtMs: number, rule: BucketRule, atMs: number): number =>
  Math.max(0, fullAtMs - toleranceMs(rule) - atMs);

/** A bucket's `fullAt` once held until `untilMs`: its next token comes exactly then. */
export const fullAtAfterHold = (rule: BucketRule, untilMs: number): number =>
  untilMs + toleranceMs(rule);

/**
 * The latest a bucket touched at `atMs` can be full again: nothing is known of it after
 * that, so a store may let it expire then.
 */
export const forgetAfterMs = (rule: BucketRule, atMs: number): number =>
  atMs + rule.burst * intervalMs(rule);

/** A sender's notify allowance from its settings: a burst, then so many a minute. */
export const notifyRule = (settings: {
  readonly burst: number;
  readonly perMinute: number;
}): BucketRule => ({ perSecond: settings.perMinute / 60, burst: settings.burst });
