/**
 * FastAPI parity: JSON numbers as Python holds and prints them. Mirrors CPython 3.11.7's
 * `json.loads` (`Lib/json/scanner.py`: a lexeme without `.`, `e` or `E` is an `int`), `repr(float)`
 * (`Objects/floatobject.c`), the 4,300-digit limit on reading an int (`sys.int_info`), and
 * pydantic-core 2.46.5's float-to-int rule (`src/input/shared.rs`, `float_as_int`).
 * Reference: Pydantic 2.13.5, CPython 3.11.7 (docs/fastapi-parity.md).
 */

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
function pythonFloatRepr(x: number): string {
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
 * Whether Python prints this number otherwise than JavaScript does. Cheap on purpose: it runs
 * for every number a body holds, and only an error that echoes one needs Python's text.
 * A fraction Python and JavaScript print alike: both give the shortest round-trip digits, in
 * fixed notation from 1e-4 up (a fractional double is below 2**52, far under 1e16).
 */
function printsOtherwise(lexeme: string, value: number): boolean {
  if (!/[.eE]/.test(lexeme)) return !Number.isSafeInteger(value);
  return Number.isFinite(value) && (Number.isInteger(value) || Math.abs(value) < 1e-4);
}

/**
 * A JSON number lexeme as Python holds it: a JS number when it prints the same, else the
 * lexeme itself as raw JSON (its Python text is made only for an error that echoes it, see
 * `pythonEcho`). Throws where `json.loads` does: an int of more than 4,300 digits (FastAPI's 400).
 */
export function pythonNumber(lexeme: string, value: number): unknown {
  if (!printsOtherwise(lexeme, value)) return value;
  if (!/[.eE]/.test(lexeme) && lexeme.replace('-', '').length > MAX_INT_DIGITS) {
    throw new RangeError(`An int of more than ${String(MAX_INT_DIGITS)} digits`);
  }
  return JSON.rawJSON(lexeme);
}

/** Python's text of a number kept raw: `1E+2` is `100.0`, `1e15` `1000000000000000.0`. */
function pythonText(raw: RawJSON): string {
  const lexeme = raw.rawJSON;
  return /[.eE]/.test(lexeme) ? pythonFloatRepr(Number(lexeme)) : BigInt(lexeme).toString();
}

/** A value as a 422 echoes it: every raw number in it in Python's text. */
export function pythonEcho(value: unknown): unknown {
  if (JSON.isRawJSON(value)) return JSON.rawJSON(pythonText(value));
  if (Array.isArray(value)) return value.map(pythonEcho);
  if (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, pythonEcho(item)]));
  }
  return value;
}

/** Whether a parsed value is a number kept in its Python form. */
export const isRawNumber = (value: unknown): value is RawJSON => JSON.isRawJSON(value);

/**
 * Whether the text may hold a number Python prints otherwise (see `printsOtherwise`): an
 * exponent, a zero fraction, a tiny fraction, or 15 digits and more (a big int, or a fraction
 * finer than a double, which may round to a whole number). Strings may match too: it only
 * decides whether the exact pass runs.
 */
const PYTHON_NUMBER_HINT = /\d[eE]|\.0+(?!\d)|0\.0000|[\d.]{16}/;
export const mayHoldPythonNumbers = (text: string): boolean => PYTHON_NUMBER_HINT.test(text);

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
