import { createHandlerLoader, type LocalWiring } from './handler-loader.ts';
import { invokeAsLambda } from './lambda-context.ts';
import { stackFunction } from './stack-functions.ts';

/** The waits before Lambda's two retries of a failed async invocation (1 and 2 min), shortened. */
const RETRY_DELAYS_MS = [200, 1000];

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

export interface AsyncInvoker {
  /** Hands `event` to the function and returns at once, as `InvocationType: Event` does. */
  invoke(event: unknown): void;
  /** Waits for the invocations under way, retries included, so the stage can stop cleanly. */
  drain(): Promise<void>;
}

/**
 * A handler module invoked asynchronously, as S3's notifications and EventBridge's rules
 * invoke a function on AWS: with the function's own timeout and memory (its declaration's),
 * retried twice when it throws or runs out of time, then given up on (on AWS the event would
 * go to the function's failure destination; here the console says so).
 */
export function asyncInvoker(target: {
  readonly functionId: string;
  readonly entry: string;
  readonly root: string;
  readonly wiring: LocalWiring;
  /** The waits before the two retries; Lambda's, shortened, unless given. */
  readonly retryDelaysMs?: readonly [number, number];
}): AsyncInvoker {
  const load = createHandlerLoader(target.root, target.wiring);
  const inFlight = new Set<Promise<void>>();
  const { functionId } = target;
  const sizing = stackFunction(functionId);
  const say = (what: string, ...details: unknown[]) => {
    console.error(`[${functionId}] ${what}`, ...details);
  };

  const deliver = async (event: unknown): Promise<void> => {
    const handler = await load(target.entry);
    for (let attempt = 0; ; attempt++) {
      try {
        // A time-out is a failure like any other: retried.
        await invokeAsLambda(functionId, sizing, (context) => handler(event, context));
        return;
      } catch (error) {
        const delay = (target.retryDelaysMs ?? RETRY_DELAYS_MS)[attempt];
        if (delay === undefined) {
          say('gave up on an event after 3 attempts:', error);
          return;
        }
        await sleep(delay);
      }
    }
  };

  return {
    invoke: (event) => {
      const delivery = deliver(event).catch((error: unknown) => {
        say('could not be loaded:', error);
      });
      inFlight.add(delivery);
      void delivery.finally(() => inFlight.delete(delivery));
    },
    drain: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
