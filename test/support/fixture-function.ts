/**
 * A Lambda handler for tests of the local Invoke API, told by its event what to do: sleep
 * past its timeout, throw, or log a line and return the event.
 */
export const handler = async (event: {
  readonly sleepMs?: number;
  readonly throwMessage?: string;
  readonly log?: string;
}): Promise<unknown> => {
  // What console.log does in a process of its own (Vitest replaces the test's console).
  if (event.log !== undefined) process.stdout.write(`${event.log}\n`);
  if (event.sleepMs !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, event.sleepMs));
  }
  if (event.throwMessage !== undefined) throw new RangeError(event.throwMessage);
  return { echoed: event };
};
