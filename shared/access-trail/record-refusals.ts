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
  /** Told of each refusal whose slot was taken, so not written: the handler counts them. */
  readonly refusalNotRecorded?: () => void;
}

/**
 * Records a refused access in each deal it named, then gives the refusal back to be thrown.
 * Each entry takes one of the caller's bounded slots (`recordRefusal`), all at once. The
 * refusal is answered whatever happens here: nothing is handed out, so an entry that cannot
 * be written is logged, not raised.
 */
export async function refusedAfterRecording<O extends NotFound | AccessDenied>(
  ports: RefusalPorts,
  requester: Requester,
  refusal: O,
  facts: readonly Omit<EntryFacts, 'outcome' | 'status'>[],
): Promise<O> {
  const status = REFUSAL_STATUS[refusal.kind];
  await Promise.all(
    facts.map(async (fact) => {
      const entry = newAccessEntry({ ...fact, outcome: 'refused', status }, requester, ports);
      try {
        if ((await ports.accessTrail.recordRefusal(entry)) === 'slot-taken') {
          ports.refusalNotRecorded?.();
        }
      } catch (error) {
        logger.warn('A refused access could not be recorded in the access trail', {
          error,
          action: entry.action,
        });
      }
    }),
  );
  return refusal;
}
