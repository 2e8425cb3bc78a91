import { waitLimit } from './wait-limit.ts';

/** Polls until `check` holds, or fails after `timeoutMs` (10 s, scaled by TEST_PATIENCE). */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = waitLimit(10_000),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
