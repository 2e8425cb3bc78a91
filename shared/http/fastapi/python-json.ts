/**
 * FastAPI parity: CPython's `json.loads`, as FastAPI runs it on a JSON body and reports its
 * failure (`json_invalid` with the decoder's `msg` and `pos`: `fastapi/routing.py`,
 * `get_request_handler`). Mirrors CPython 3.11.7 `Lib/json/decoder.py` and `Lib/json/scanner.py`
 * (the C scanner in `Modules/_json.c` that runs by default gives the same messages and offsets),
 * its recursion limit included.
 * Reference: FastAPI 0.142.2, CPython 3.11.7 (docs/fastapi-parity.md).
 */

import { mayHoldPythonNumbers, pythonNumber } from './python-number.ts';

/**
 * A JSON decoder that fails exactly where CPython's `json.loads` fails, with the same
 * message and character offset (CPython 3.11, the reference's; 3.13 reworded trailing
 * commas). FastAPI puts both into its `json_invalid` error (`loc: ["body", pos]`,
 * `ctx.error`), and the contract's clients read them.
 *
 * It also accepts what Python accepts and `JSON.parse` does not (NaN, Infinity,
 * -Infinity), so a body FastAPI would have validated is validated here too.
 */

export type PythonJsonResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly msg: string; readonly pos: number };

class DecodeError extends Error {
  readonly msg: string;
  readonly index: number;

  constructor(msg: string, index: number) {
    super(msg);
    this.msg = msg;
    this.index = index;
  }
}

/** Python's StopIteration(idx): "no value starts here", reported as "Expecting value". */
class NoValue extends Error {
  readonly index: number;

  constructor(index: number) {
    super('Expecting value');
    this.index = index;
  }
}

const isWhitespace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const HEX = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class Scanner {
  private readonly s: string;
  /** Arrays and objects open around the value being read: Python's recursion depth. */
  private depth = 0;

  constructor(text: string) {
    this.s = text;
  }

  private skipWhitespace(i: number): number {
    while (isWhitespace(this.s[i])) i++;
    return i;
  }

  decode(): unknown {
    const start = this.skipWhitespace(0);
    const [value, end] = this.scanOnce(start);
    const after = this.skipWhitespace(end);
    if (after !== this.s.length) throw new DecodeError('Extra data', after);
    return value;
  }

  private scanOnce(i: number): [unknown, number] {
    const s = this.s;
    const c = s[i];
    if (c === undefined) throw new NoValue(i);
    if (c === '"') return this.scanString(i + 1);
    if (c === '{' || c === '[') {
      // Python meets its RecursionError here, before any syntax error further in.
      if (++this.depth > MAX_JSON_NESTING) throw new RangeError('JSON nested too deep');
      try {
        return c === '{' ? this.scanObject(i + 1) : this.scanArray(i + 1);
      } finally {
        this.depth--;
      }
    }
    if (c === 'n' && s.startsWith('null', i)) return [null, i + 4];
    if (c === 't' && s.startsWith('true', i)) return [true, i + 4];
    if (c === 'f' && s.startsWith('false', i)) return [false, i + 5];
    if (c === 'N' && s.startsWith('NaN', i)) return [NaN, i + 3];
    if (c === 'I' && s.startsWith('Infinity', i)) return [Infinity, i + 8];
    if (c === '-' && s.startsWith('-Infinity', i)) return [-Infinity, i + 9];
    return this.scanNumber(i);
  }

  private scanNumber(start: number): [unknown, number] {
    const s = this.s;
    let i = start;
    if (s[i] === '-') i++;
    if (s[i] === '0') i++;
    else if (s[i] !== undefined && (s[i] ?? '') >= '1' && (s[i] ?? '') <= '9') {
      while (isDigit(s[i])) i++;
    } else throw new NoValue(start);
    if (s[i] === '.' && isDigit(s[i + 1])) {
      i += 2;
      while (isDigit(s[i])) i++;
    }
    if (s[i] === 'e' || s[i] === 'E') {
      const exponentStart = i;
      i++;
      if (s[i] === '-' || s[i] === '+') i++;
      if (isDigit(s[i])) while (isDigit(s[i])) i++;
      else i = exponentStart;
    }
    const lexeme = s.slice(start, i);
    return [pythonNumber(lexeme, Number(lexeme)), i];
  }

  /** `begin` is the index just after the opening quote, as in CPython's scanstring. */
  private scanString(begin: number): [string, number] {
    const s = this.s;
    let out = '';
    let i = begin;
    for (;;) {
      const c = s[i];
      if (c === undefined) throw new DecodeError('Unterminated string starting at', begin - 1);
      if (c === '"') return [out, i + 1];
      if (c <= '\u001f') throw new DecodeError('Invalid control character at', i);
      if (c !== '\\') {
        out += c;
        i++;
        continue;
      }
      const escape = s[i + 1];
      if (escape === undefined) throw new DecodeError('Unterminated string starting at', begin - 1);
      if (escape !== 'u') {
        const decoded = SIMPLE_ESCAPES[escape];
        if (decoded === undefined) throw new DecodeError('Invalid \\escape', i);
        out += decoded;
        i += 2;
        continue;
      }
      const unit = this.hex4(i + 1);
      let codePoint = unit;
      i += 6;
      if (unit >= 0xd800 && unit <= 0xdbff && s[i] === '\\' && s[i + 1] === 'u') {
        const low = this.hex4(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          codePoint = 0x10000 + (((unit - 0xd800) << 10) | (low - 0xdc00));
          i += 6;
        }
      }
      out += String.fromCodePoint(codePoint);
    }
  }

  /** `u` is the index of the `u` of a `\uXXXX` escape. */
  private hex4(u: number): number {
    const digits = this.s.slice(u + 1, u + 5);
    if (u + 5 >= this.s.length || !HEX.test(digits)) {
      throw new DecodeError('Invalid \\uXXXX escape', u);
    }
    return parseInt(digits, 16);
  }

  private scanObject(start: number): [Record<string, unknown>, number] {
    const s = this.s;
    const result: Record<string, unknown> = {};
    let i = this.skipWhitespace(start);
    if (s[i] === '}') return [result, i + 1];
    for (;;) {
      if (s[i] !== '"') {
        throw new DecodeError('Expecting property name enclosed in double quotes', i);
      }
      const [key, afterKey] = this.scanString(i + 1);
      i = this.skipWhitespace(afterKey);
      if (s[i] !== ':') throw new DecodeError("Expecting ':' delimiter", i);
      i = this.skipWhitespace(i + 1);
      const [value, afterValue] = this.scanOnce(i);
      Object.defineProperty(result, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      i = this.skipWhitespace(afterValue);
      if (s[i] === '}') return [result, i + 1];
      if (s[i] !== ',') throw new DecodeError("Expecting ',' delimiter", i);
      // A trailing comma fails at the `}` as a missing name (CPython before 3.13).
      i = this.skipWhitespace(i + 1);
    }
  }

  private scanArray(start: number): [unknown[], number] {
    const s = this.s;
    const result: unknown[] = [];
    let i = this.skipWhitespace(start);
    if (s[i] === ']') return [result, i + 1];
    for (;;) {
      const [value, afterValue] = this.scanOnce(i);
      result.push(value);
      i = this.skipWhitespace(afterValue);
      if (s[i] === ']') return [result, i + 1];
      if (s[i] !== ',') throw new DecodeError("Expecting ',' delimiter", i);
      // A trailing comma fails at the `]` as a missing value (CPython before 3.13).
      i = this.skipWhitespace(i + 1);
    }
  }
}

/** Python counts offsets in code points; JavaScript strings index UTF-16 code units. */
function codePointOffset(text: string, codeUnitIndex: number): number {
  let count = 0;
  for (let i = 0; i < codeUnitIndex; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < codeUnitIndex) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * How deep CPython's json decoder nests before its RecursionError (the default recursion
 * limit, less the frames FastAPI's own stack already holds, puts it just under 1,000).
 */
export const MAX_JSON_NESTING = 1000;

const NOT_JSON = Symbol('not JSON');

/** Whether arrays and objects nest deeper than `limit` anywhere outside strings. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * A valid JSON text with Python's numbers. Most bodies hold none that Python types or prints
 * otherwise, and `JSON.parse` alone reads them; the others go through a reviver that keeps
 * such a number's source (ten times the cost, and only the lexeme: Python's text of it is
 * made only when an error echoes it).
 */
function parseWithPythonNumbers(text: string): unknown {
  return mayHoldPythonNumbers(text)
    ? JSON.parse(text, (_key, value, { source }) =>
        typeof value === 'number' && source !== undefined ? pythonNumber(source, value) : value,
      )
    : (JSON.parse(text) as unknown);
}

export function parsePythonJson(text: string): PythonJsonResult {
  let parsed: unknown;
  try {
    // The fast path: valid JSON means the same value in both languages, but for numbers
    // Python types or prints otherwise (see python-number.ts).
    parsed = parseWithPythonNumbers(text);
  } catch (error) {
    // An int of more than 4,300 digits is valid JSON that Python will not read.
    if (error instanceof RangeError) throw error;
    parsed = NOT_JSON;
  }
  if (parsed !== NOT_JSON) {
    // V8 reads any depth; Python does not, and nothing downstream (a 422 echoing the input)
    // should have to walk what Python would never have read.
    if (nestsDeeperThan(text, MAX_JSON_NESTING)) {
      throw new RangeError(`JSON nested deeper than ${String(MAX_JSON_NESTING)} levels`);
    }
    return { ok: true, value: parsed };
  }
  try {
    return { ok: true, value: new Scanner(text).decode() };
  } catch (error) {
    if (error instanceof NoValue) {
      return { ok: false, msg: 'Expecting value', pos: codePointOffset(text, error.index) };
    }
    if (error instanceof DecodeError) {
      return { ok: false, msg: error.msg, pos: codePointOffset(text, error.index) };
    }
    // A RangeError from nesting deeper than the stack allows: Python raises RecursionError,
    // which FastAPI answers like any other unreadable body.
    throw error;
  }
}
