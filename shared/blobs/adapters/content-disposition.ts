/** RFC 5987 `attr-char`: what may stand unescaped in `filename*`. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

const extValue = (name: string): string =>
  Array.from(new TextEncoder().encode(name), (byte) => {
    const char = String.fromCharCode(byte);
    return byte < 0x80 && ATTR_CHAR.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');

/**
 * `attachment` with the file's own name (RFC 6266): an ASCII `filename` for old clients,
 * and the exact name, in UTF-8, as `filename*`, which every current browser prefers. A
 * signed download link asks S3 to answer with it, so the bytes save under the file's name.
 */
export function attachmentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/gu, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${extValue(name)}`;
}
