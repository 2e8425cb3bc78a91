/**
 * S3 event notifications carry object keys URL-encoded, with `+` for a space and `/` kept.
 * These read and write that form; a key that is not validly encoded reads as undefined.
 */
export function decodeEventKey(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

export function encodeEventKey(key: string): string {
  return encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+');
}
