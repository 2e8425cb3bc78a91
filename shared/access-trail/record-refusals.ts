import type { AccessDenied, NotFound } from '../domain/outcome.ts';
import { logger } from '../logger.ts';
import {
  type EntryFacts,
  type EntryStamp,
  newAccessEntry,
  type Requester,
} from './access-entry.ts';
import type { AccessTrail } from './access-trail.ts';

/**
 * The status each refusal is answered with, as the entry records it: the HTTP layer's own
 * (shared/http/outcome-response.ts; the e2e tests hold each entry to its answer).
 */
const REFUSAL_STATUS: Readonly<Record<(NotFound | AccessDenied)['kind'], number>> = {
  'not-found': 404,
  'access-denied': 403,
};

export interface RefusalPorts extends EntryStamp {
  readonly accessTrail: Pick<AccessTrail, 'recordRefusal'>;
  /** Told of the entries of a refusal whose slot was taken, so not written: the handler counts them. */
  readonly refusalNotRecorded?: (entries: number) => void;
}

/**
 * Records a refused access in each deal it named, then gives the refusal back to be thrown.
 * The request takes one of its caller's bounded slots for the minute (`recordRefusal`), with
 * all its entries, stamped at one time. The refusal is answered whatever happens here: nothing
 * is handed out, so entries that cannot be written are logged, not raised.
 */
export async function refusedAfterRecording<O extends NotFound | AccessDenied>(
  ports: RefusalPorts,
  requester: Requester,
  refusal: O,
  facts: readonly Omit<EntryFacts, 'outcome' | 'status'>[],
): Promise<O> {
  if (facts.length === 0) return refusal;
  const status = REFUSAL_STATUS[refusal.kind];
  const now = ports.now?.() ?? new Date();
  const entries = facts.map((fact) =>
    newAccessEntry({ ...fact, outcome: 'refused', status }, requester, {
      ...ports,
      now: () => now,
    }),
  );
  try {
    if ((await ports.accessTrail.recordRefusal(entries)) === 'slot-taken') {
      ports.refusalNotRecorded?.(entries.length);
    }
  } catch (error) {
    logger.warn('A refused access could not be recorded in the access trail', {
      error,
      actions: [...new Set(entries.map((entry) => entry.action))],
    });
  }
  return refusal;
}
