const MAX_ATTEMPTS = 8;

const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * Sends one batch call until DynamoDB has processed every request in it. Under throttling a
 * BatchGetItem or BatchWriteItem answers part of its requests and hands back the rest; those
 * go again, with backoff and full jitter as AWS advises, at most eight times in all.
 */
export async function sendUntilProcessed<T>(
  operation: 'BatchGetItem' | 'BatchWriteItem',
  batch: readonly T[],
  /** Sends these requests; answers the ones DynamoDB left unprocessed. */
  send: (pending: T[]) => Promise<readonly T[]>,
): Promise<void> {
  let pending = [...batch];
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_ATTEMPTS) {
      throw new Error(`${operation} left ${pending.length} requests unprocessed after retries`);
    }
    if (attempt > 1) await pause(Math.random() * Math.min(1000, 25 * 2 ** attempt));
    pending = [...(await send(pending))];
  }
}
