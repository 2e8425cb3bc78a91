import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { Context } from 'aws-lambda';
import { AccountErased } from '../domain/outcome.ts';
import { recordMetric } from '../observability/metrics.ts';
import { ConflictError, RequestValidationError } from './http-errors.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** How long a key's first response is replayed. */
const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;

/** What identifies a request under an `Idempotency-Key`, and what it must match on replay. */
interface IdempotentCall {
  readonly userId: number;
  readonly key: string;
  /** A digest of the request; a replay with another one is refused. */
  readonly fingerprint: string;
}

/**
 * Where idempotency records live: a store for one operation's records of one caller (the
 * table's layout is the adapter's, shared/storage/idempotency-store.ts).
 */
export interface IdempotencyStore {
  // A method, so that an adapter may take only the operations it lays out.
  recordsOf(operation: string, userId: number): BasePersistenceLayer;
}

/** A request as the idempotent call sees it; without a key it simply runs. */
export interface KeyedRequest {
  readonly userId: number;
  /** The `Idempotency-Key` header, when the client sent one. */
  readonly key: string | undefined;
  /** A digest of the request, computed only when there is a key. */
  readonly fingerprint: () => string;
}

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Powertools idempotency for requests that carry an `Idempotency-Key` (others simply run): the same key from the
 * same user within 24 hours gets the first response again, and nothing runs twice. Records
 * live in a partition per operation and caller (`IDEMPOTENCY#<operation>#USER#<uid>`), so
 * erasing a user finds theirs, and a busy operation spreads over its callers. A replay with a
 * different request is a 422, a replay while the first is still running a 409 (the IETF
 * Idempotency-Key draft's codes). Each replay adds to the IdempotentReplays metric. An erased
 * caller's key is not kept (the store refuses their records: AccountErased): the call runs as
 * one without a key, and its own writes refuse it as such.
 */
export function idempotentPerKey<A, R extends JsonValue>(
  operation: string,
  work: (argument: A) => Promise<R>,
  store: IdempotencyStore,
): (argument: A, request: KeyedRequest, context: Context) => Promise<R> {
  // The partition is the caller's, so the persistence layer is made per keyed call: a few
  // small objects, no I/O.
  const idempotentFor = (userId: number, context: Context, run: (argument: A) => Promise<R>) => {
    const config = new IdempotencyConfig({
      expiresAfterSeconds: IDEMPOTENCY_WINDOW_SECONDS,
      eventKeyJmesPath: '[userId, key]',
      payloadValidationJmesPath: 'fingerprint',
      throwOnNoIdempotencyKey: true,
    });
    config.registerLambdaContext(context);
    const persistenceStore = store.recordsOf(operation, userId);
    return makeIdempotent((argument: A, _call: IdempotentCall): Promise<R> => run(argument), {
      persistenceStore,
      config,
      keyPrefix: operation,
      dataIndexArgument: 1,
    });
  };
  return async (argument, request, context) => {
    if (request.key === undefined) return work(argument);
    const call = { userId: request.userId, key: request.key, fingerprint: request.fingerprint() };
    // The work runs only when this is no replay.
    const ran = { work: false };
    const running = async (value: A) => {
      ran.work = true;
      return work(value);
    };
    try {
      const result = await idempotentFor(request.userId, context, running)(argument, call);
      if (!ran.work) recordMetric('IdempotentReplays');
      return result;
    } catch (error) {
      if (error instanceof IdempotencyAlreadyInProgressError) {
        throw new ConflictError(
          'A request with this Idempotency-Key is still being processed; retry shortly',
        );
      }
      if (
        error instanceof IdempotencyPersistenceLayerError &&
        error.cause instanceof AccountErased
      ) {
        return work(argument);
      }
      if (error instanceof IdempotencyValidationError) {
        throw new RequestValidationError([
          {
            type: 'idempotency_key_reused',
            loc: ['header', IDEMPOTENCY_HEADER],
            msg: 'This Idempotency-Key was already used for a different request',
            input: call.key,
          },
        ]);
      }
      throw error;
    }
  };
}
