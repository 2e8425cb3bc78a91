/**
 * A `Retry-After` header in milliseconds from `now`: delta-seconds or an HTTP date
 * (RFC 9110 §10.2.3). Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form starts with a day name; Date.parse alone would read "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}
