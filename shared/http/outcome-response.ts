import type { Outcome, Rule } from '../domain/outcome.ts';
import { HttpError } from './http-errors.ts';

/** FastAPI's status for each kind of refusal; the outcome's reason is its `detail`. */
const STATUS: Readonly<Record<Exclude<Outcome['kind'], 'rule-broken'>, number>> = {
  'not-found': 404,
  'access-denied': 403,
  conflict: 409,
};

/** A broken rule's status: HTTP's own meaning where it has one. */
const RULE_STATUS: Readonly<Record<Rule, number>> = {
  'file-named': 400,
  'file-not-empty': 400,
  'file-size-limit': 413,
};

/** The one place domain outcomes become HTTP: the status and body the contract's clients parse. */
export function outcomeAsHttpError(outcome: Outcome): HttpError {
  const status = outcome.kind === 'rule-broken' ? RULE_STATUS[outcome.rule] : STATUS[outcome.kind];
  return new HttpError(status, outcome.message, { cause: outcome });
}
