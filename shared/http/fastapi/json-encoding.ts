/**
 * FastAPI parity: how a JSON body's bytes become text. Starlette's `request.json()` calls
 * `json.loads(bytes)`; this mirrors CPython 3.11.7 `Lib/json/__init__.py` (`detect_encoding`, then
 * `bytes.decode`). One deliberate difference: a surrogate encoded in UTF-8 is refused here, where
 * Python's `surrogatepass` reads it (docs/fastapi-parity.md).
 * Reference: Starlette 1.7.0, CPython 3.11.7.
 */

/**
 * Python's `json.detect_encoding`: `json.loads(bytes)` (Starlette's `request.json()`) reads
 * UTF-8, UTF-16 and UTF-32, with or without a byte order mark. Throws on bytes that are not
 * valid in the detected encoding, which FastAPI answers with a 400.
 */
export function decodeJsonBytes(bytes: Uint8Array): string {
  const [b0, b1, b2, b3] = bytes;
  const startsWith = (...prefix: number[]) => prefix.every((byte, i) => bytes[i] === byte);
  if (startsWith(0x00, 0x00, 0xfe, 0xff)) return decodeUtf32(bytes.subarray(4), false);
  if (startsWith(0xff, 0xfe, 0x00, 0x00)) return decodeUtf32(bytes.subarray(4), true);
  if (startsWith(0xfe, 0xff)) return strict('utf-16be', bytes.subarray(2));
  if (startsWith(0xff, 0xfe)) return strict('utf-16le', bytes.subarray(2));
  if (startsWith(0xef, 0xbb, 0xbf)) return strict('utf-8', bytes.subarray(3));
  if (bytes.length >= 4) {
    if (b0 === 0) return b1 === 0 ? decodeUtf32(bytes, false) : strict('utf-16be', bytes);
    if (b1 === 0) {
      return b2 !== 0 || b3 !== 0 ? strict('utf-16le', bytes) : decodeUtf32(bytes, true);
    }
  } else if (bytes.length === 2) {
    if (b0 === 0) return strict('utf-16be', bytes);
    if (b1 === 0) return strict('utf-16le', bytes);
  }
  return strict('utf-8', bytes);
}

function strict(encoding: 'utf-8' | 'utf-16le' | 'utf-16be', bytes: Uint8Array): string {
  return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
}

/** TextDecoder has no UTF-32. */
function decodeUtf32(bytes: Uint8Array, littleEndian: boolean): string {
  if (bytes.length % 4 !== 0) throw new TypeError('truncated UTF-32');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const codePoint = view.getUint32(i, littleEndian);
    if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      throw new TypeError('invalid UTF-32');
    }
    text += String.fromCodePoint(codePoint);
  }
  return text;
}
