/**
 * What a use case refuses on purpose, in the domain's words. Each edge says it in its own
 * terms: the HTTP layer as FastAPI's status and body (`#shared/http/outcome-response.ts`),
 * the operator CLI as its message, the upload finalizer as "drop, do not retry". Anything
 * else a use case throws is our fault.
 */
abstract class DomainOutcome extends Error {
  abstract readonly kind:
    'not-found' | 'access-denied' | 'conflict' | 'rule-broken' | 'rate-limited' | 'unavailable';

  constructor(reason: string) {
    super(reason);
    this.name = new.target.name;
  }
}

/**
 * Nothing the caller may see by that name. The reason, when there is one, names what is
 * missing in words the caller already knows (the ids they sent), never what exists.
 */
export class NotFound extends DomainOutcome {
  readonly kind = 'not-found';

  constructor(reason = 'Not Found') {
    super(reason);
  }
}

/** The caller may see the thing but not do this to it. */
export class AccessDenied extends DomainOutcome {
  readonly kind = 'access-denied';
}

/**
 * The user was erased: their id takes no new files, uploads or notifications, so nothing
 * written behind an erasure outlives it. Each write that creates an item of theirs refuses so.
 */
export class AccountErased extends AccessDenied {
  constructor() {
    super('This account has been erased');
  }
}

/**
 * The request clashes with the thing's current state; a retry later may succeed, after
 * `retryAfterMs` when the state is known to settle on its own.
 */
export class Conflict extends DomainOutcome {
  readonly kind = 'conflict';
  readonly retryAfterMs: number | undefined;

  constructor(reason: string, retryAfterMs?: number) {
    super(reason);
    this.retryAfterMs = retryAfterMs;
  }
}

/** Malware was found in the file: no one may have its bytes, though its record stays. */
export class FileQuarantined extends AccessDenied {}

/** The rules a request can break, each with its own answer at the edges. */
export type Rule = 'file-named' | 'file-not-empty' | 'file-size-limit' | 'file-digest';

/** The request breaks a rule of the domain; the reason says which and how. */
export class RuleBroken extends DomainOutcome {
  readonly kind = 'rule-broken';
  readonly rule: Rule;

  constructor(rule: Rule, reason: string) {
    super(reason);
    this.rule = rule;
  }
}

/**
 * The caller has used up its allowance for now; the same request may succeed once
 * `retryAfterMs` has passed. Nothing was done for it.
 */
export class RateLimited extends DomainOutcome {
  readonly kind = 'rate-limited';
  readonly retryAfterMs: number;

  constructor(reason: string, retryAfterMs: number) {
    super(reason);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The access trail could not take the request's entries, so nothing was handed out or changed
 * (fail closed: no link or token without its entry). The same request may succeed at once.
 */
export class TrailUnavailable extends DomainOutcome {
  readonly kind = 'unavailable';
  readonly retryAfterMs = 1000;

  constructor(reason = 'the access trail could not be written (try again shortly)') {
    super(reason);
  }
}

/** Every outcome there is: a switch over `kind` covers them all. */
export type Outcome =
  NotFound | AccessDenied | Conflict | RuleBroken | RateLimited | TrailUnavailable;

export const isOutcome = (error: unknown): error is Outcome => error instanceof DomainOutcome;
