import { patient } from './patience.ts';

/** Polls until `check` holds, or fails after `timeoutMs` (10 s, scaled by TEST_PATIENCE). */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = patient(10_000),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
