import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalWiring } from './handler-loader.ts';
import { stackInvoker } from './stack-functions.ts';

/** The waits before Lambda's two retries of a failed async invocation (1 and 2 min), shortened. */
const RETRY_DELAYS_MS = [200, 1000] as const;

/**
 * A function invoked as S3's notifications and EventBridge's rules invoke it: with its own
 * timeout and memory, retried twice when it throws or times out, then given up on (AWS would
 * send the event to the failure destination; here the console says so).
 */
export function asyncInvoker(
  wiring: LocalWiring,
  functionId: string,
  retryDelaysMs: readonly [number, number] = RETRY_DELAYS_MS,
) {
  const invoke = stackInvoker(wiring, functionId);
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();
  const deliver = async (event: unknown): Promise<void> => {
    for (const delay of [...retryDelaysMs, undefined]) {
      try {
        await invoke(event);
        return;
      } catch (error) {
        if (delay === undefined) console.error(`[${functionId}] gave up after 3 attempts:`, error);
        else await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  };
  return {
    /** Hands `event` to the function and returns at once, as `InvocationType: Event` does. */
    invoke: (event: unknown): void => {
      const delivery = deliver(event);
      inFlight.add(delivery);
      void delivery.finally(() => inFlight.delete(delivery));
    },
    /** Waits for those under way: a retry still waiting runs now, as no stage will run it later. */
    drain: async () => {
      stopping.abort();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
