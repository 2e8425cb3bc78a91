/**
 * JSON numbers as Python reads them. `json.loads` makes a lexeme without `.`, `e` or `E` an
 * `int` of any size, and anything else a `float`; a 422 echoes either as Python prints it
 * (`9223372036854775808`, `1.0`, `1e+20`). JavaScript has one number type, which would print
 * `9223372036854776000`, `1` and `100000000000000000000`. A number whose Python form differs
 * is kept as `JSON.rawJSON` of that form, which `JSON.stringify` writes back verbatim.
 */

// Node 24 has JSON.rawJSON and JSON.parse's source text (ES2026); TypeScript's lib does not yet.
declare global {
  interface RawJSON {
    readonly rawJSON: string;
  }
  interface JSON {
    rawJSON(text: string): RawJSON;
    isRawJSON(value: unknown): value is RawJSON;
    parse(
      text: string,
      reviver: (key: string, value: unknown, context: { readonly source?: string }) => unknown,
    ): unknown;
  }
}

/** Python's `repr(float)`: the shortest round-trip digits, fixed for 1e-4 <= |x| < 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponentText = '0'] = x.toExponential().split('e');
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const whole = digits.padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${whole.slice(0, exponent + 1)}.${fraction === '' ? '0' : fraction}`;
  }
  const shown = digits.length === 1 ? digits : `${digits[0] ?? ''}.${digits.slice(1)}`;
  const exponentSign = exponent < 0 ? '-' : '+';
  return `${sign}${shown}e${exponentSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** CPython refuses to read an int of more digits (`sys.int_info.default_max_str_digits`). */
const MAX_INT_DIGITS = 4300;

/**
 * A JSON number lexeme as Python holds it: a JS number when it prints the same, else raw.
 * Throws where `json.loads` does: an int of more than 4,300 digits (FastAPI's 400).
 */
export function pythonNumber(lexeme: string, value: number): unknown {
  if (!/[.eE]/.test(lexeme)) {
    if (lexeme.replace('-', '').length > MAX_INT_DIGITS) {
      throw new RangeError(`An int of more than ${String(MAX_INT_DIGITS)} digits`);
    }
    return Number.isSafeInteger(value) ? value : JSON.rawJSON(BigInt(lexeme).toString());
  }
  const repr = pythonFloatRepr(value);
  // Infinity has no JSON form; Python's own 422 for it fails to serialise (a 500). Ours
  // echoes null, as JSON.stringify writes it.
  if (!Number.isFinite(value)) return value;
  // A whole float stays a float: Pydantic reads 1e20 as no int, where 1e20 as a number is one.
  return !Number.isInteger(value) && repr === JSON.stringify(value) ? value : JSON.rawJSON(repr);
}

/** Whether a parsed value is a number kept in its Python form. */
export const isRawNumber = (value: unknown): value is RawJSON => JSON.isRawJSON(value);

/** Whether the text holds a number whose Python form may differ from JavaScript's. */
export const mayHoldPythonNumbers = (text: string): boolean => /\d[.eE]|\d{16}/.test(text);

/** Python's largest int a float converts to in Pydantic (i64); beyond, `int_parsing_size`. */
const I64_LIMIT = 2 ** 63;

/**
 * An integer as Pydantic's lax `int` reads a raw number: a bigint when it is beyond the
 * safe range, a number otherwise (fractional ones then fail as `int_from_float`), or
 * undefined when the float is too large for any int (`int_parsing_size`).
 */
export function rawNumberAsInt(raw: RawJSON): number | bigint | undefined {
  const text = raw.rawJSON;
  if (/^-?\d+$/.test(text)) return BigInt(text);
  const value = Number(text);
  if (!Number.isInteger(value)) return value;
  if (Math.abs(value) >= I64_LIMIT) return undefined;
  return Number.isSafeInteger(value) ? value : BigInt(value);
}
