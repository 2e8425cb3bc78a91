/**
 * The one scale factor for how long a test waits for something to happen: `TEST_PATIENCE`
 * (default 1) multiplies every wait limit, so a slow or shared machine can be given more
 * time without touching a test. Limits only: a wait still ends as soon as its condition holds.
 */
const PATIENCE = patienceFrom(process.env.TEST_PATIENCE);

function patienceFrom(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new Error(`TEST_PATIENCE must be a positive number, got "${value}"`);
  }
  return factor;
}

/** A wait limit of `ms` on an unhurried machine, scaled by TEST_PATIENCE. */
export const waitLimit = (ms: number): number => ms * PATIENCE;
