const USER_ID = /^[1-9][0-9]{0,15}$/;

/** A user id: a positive integer within JSON's safe range, given as a number or a string. */
export function parseUserId(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !USER_ID.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}
