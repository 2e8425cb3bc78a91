import type { Outcome, Rule } from '../domain/outcome.ts';
import { HttpError } from './http-errors.ts';

/** FastAPI's status for each kind of refusal; the outcome's reason is its `detail`. */
const STATUS: Readonly<Record<Exclude<Outcome['kind'], 'rule-broken'>, number>> = {
  'not-found': 404,
  'access-denied': 403,
  conflict: 409,
  'rate-limited': 429,
  // Our side cannot keep its record of the request (the access trail): a retry soon may pass.
  unavailable: 503,
};

/** A broken rule's status: HTTP's own meaning where it has one. */
const RULE_STATUS: Readonly<Record<Rule, number>> = {
  'file-named': 400,
  'file-not-empty': 400,
  'file-size-limit': 413,
  // S3's own answer to bytes that do not match their declared checksum (400 BadDigest).
  'file-digest': 400,
};

/**
 * `Retry-After` in whole seconds (RFC 9110 allows no fraction), rounded up so a client that
 * waits exactly that long finds its allowance back; never 0, which would invite a retry at once.
 */
const retryAfterSeconds = (ms: number): string => String(Math.max(1, Math.ceil(ms / 1000)));

/** The one place domain outcomes become HTTP: the status and body the contract's clients parse. */
export function outcomeAsHttpError(outcome: Outcome): HttpError {
  const status = outcome.kind === 'rule-broken' ? RULE_STATUS[outcome.rule] : STATUS[outcome.kind];
  // A wait the domain knows of: the allowance's refill, a scan under way.
  const retryAfterMs =
    outcome.kind === 'rate-limited' || outcome.kind === 'conflict' || outcome.kind === 'unavailable'
      ? outcome.retryAfterMs
      : undefined;
  // A 5xx says nothing of our internals: the body a throttled dependency gets.
  const detail = outcome.kind === 'unavailable' ? 'Service Unavailable' : outcome.message;
  return new HttpError(status, detail, {
    ...(retryAfterMs === undefined
      ? {}
      : { headers: { 'retry-after': retryAfterSeconds(retryAfterMs) } }),
    cause: outcome,
  });
}
