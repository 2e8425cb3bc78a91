/**
 * Whether an origin matches an allowed-origin pattern, as S3 matches a CORS rule's
 * AllowedOrigin: the pattern itself, or, with its one `*`, anything that starts with what
 * comes before the star and ends with what comes after
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ManageCorsUsing.html). API
 * Gateway's `*`, `http://*` and `https://*` are the same rule.
 */
export function originMatches(pattern: string, origin: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === origin;
  if (pattern.includes('*', star + 1)) throw new Error(`${pattern}: at most one * in an origin`);
  const before = pattern.slice(0, star);
  const after = pattern.slice(star + 1);
  return (
    origin.length >= before.length + after.length &&
    origin.startsWith(before) &&
    origin.endsWith(after)
  );
}

/** Whether any of the patterns admits the origin. */
export const originAllowed = (patterns: readonly string[], origin: string): boolean =>
  patterns.some((pattern) => originMatches(pattern, origin));
