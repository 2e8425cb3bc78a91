import { describe, expect, it } from 'vitest';
import { MAX_JSON_NESTING, parsePythonJson } from '#shared/http/fastapi/python-json.ts';
import { isRawNumber, pythonEcho } from '#shared/http/fastapi/python-number.ts';

/** Each case is what CPython 3.13's `json.loads` raises: message and character offset. */
describe('parsePythonJson fails where and how CPython does', () => {
  it.each([
    ['', 'Expecting value', 0],
    ['   ', 'Expecting value', 3],
    ['{', 'Expecting property name enclosed in double quotes', 1],
    ['[', 'Expecting value', 1],
    ['{"file_ids": }', 'Expecting value', 13],
    ['{"a" 1}', "Expecting ':' delimiter", 5],
    ['{"a": 1 "b": 2}', "Expecting ',' delimiter", 8],
    ['{"a": 1, 2}', 'Expecting property name enclosed in double quotes', 9],
    ["{'a': 1}", 'Expecting property name enclosed in double quotes', 1],
    ['[1, 2,]', 'Expecting value', 6],
    ['{"a": 1,}', 'Expecting property name enclosed in double quotes', 8],
    ['{"a": "x', 'Unterminated string starting at', 6],
    ['"\u0001"', 'Invalid control character at', 1],
    ['"\\q"', 'Invalid \\escape', 1],
    ['"\\u12"', 'Invalid \\uXXXX escape', 2],
    ['"\\u12zz"', 'Invalid \\uXXXX escape', 2],
    ['1 2', 'Extra data', 2],
    ['{"a":1}}', 'Extra data', 7],
    ['[01]', "Expecting ',' delimiter", 2],
    ['tru', 'Expecting value', 0],
    ['-', 'Expecting value', 0],
    ['[1.]', "Expecting ',' delimiter", 2],
    ['undefined', 'Expecting value', 0],
  ])('%j -> %s at %i', (text, msg, pos) => {
    expect(parsePythonJson(text)).toEqual({ ok: false, msg, pos });
  });

  it('counts offsets in code points, as Python does, not UTF-16 units', () => {
    expect(parsePythonJson('"😀" x')).toEqual({ ok: false, msg: 'Extra data', pos: 4 });
  });

  it('accepts what Python accepts and JSON.parse refuses', () => {
    const result = parsePythonJson('{"a": NaN, "b": [Infinity, -Infinity]}');
    expect(result).toEqual({ ok: true, value: { a: NaN, b: [Infinity, -Infinity] } });
  });

  it('decodes escapes and surrogate pairs like Python', () => {
    expect(parsePythonJson('["\\ud83d\\ude00", "\\n", -0.5, NaN]')).toEqual({
      ok: true,
      value: ['😀', '\n', -0.5, NaN],
    });
  });

  it.each([
    ['1e2', '100.0'],
    ['1.0', '1.0'],
    ['-0.0', '-0.0'],
    ['1.5e-7', '1.5e-07'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['1e15', '1000000000000000.0'],
    ['1e16', '1e+16'],
    ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['9007199254740993', '9007199254740993'],
    ['-123456789012345678901234567890', '-123456789012345678901234567890'],
  ])('keeps %s as Python holds it, and echoes it as Python prints it: %s', (lexeme, python) => {
    for (const text of [`[${lexeme}]`, `[${lexeme}, NaN]`]) {
      const result = parsePythonJson(text);
      expect(result.ok).toBe(true);
      expect(JSON.stringify(pythonEcho(result.ok ? result.value : undefined))).toMatch(
        new RegExp(`^\\[${python.replace(/[.+]/g, '\\$&')}[,\\]]`),
      );
    }
  });

  it.each(['1.5', '0.0001', '-2.75', '123456.789', '15'])(
    'reads %s as a plain number: Python prints it as JavaScript does',
    (lexeme) => {
      const result = parsePythonJson(`{"a":[${lexeme}]}`);
      const value = result.ok ? (result.value as { a: unknown[] }).a[0] : undefined;
      expect(isRawNumber(value)).toBe(false);
      expect(value).toBe(Number(lexeme));
    },
  );

  it('keeps the lexeme of a number Python prints otherwise, and makes its text only to echo it', () => {
    const result = parsePythonJson('{"a":1E+2,"b":"1.0","__proto__":{"c":1.0}}');
    expect(result.ok).toBe(true);
    const value = (result.ok ? result.value : {}) as Record<string, unknown>;
    expect(isRawNumber(value.a) && value.a.rawJSON).toBe('1E+2');
    expect(value.b).toBe('1.0');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(pythonEcho(value))).toBe('{"a":100.0,"b":"1.0","__proto__":{"c":1.0}}');
  });

  it('reads an int of 4,300 digits, and throws for one more, as json.loads does', () => {
    expect(parsePythonJson(`[${'1'.repeat(4300)}]`).ok).toBe(true);
    expect(() => parsePythonJson(`[${'1'.repeat(4301)}]`)).toThrow(RangeError);
    expect(() => parsePythonJson(`[-${'1'.repeat(4301)}, NaN]`)).toThrow(RangeError);
  });

  it('keeps numbers JavaScript prints as Python does as plain numbers', () => {
    expect(parsePythonJson('[1, -7, 0.5, 12.25, 9007199254740991]')).toEqual({
      ok: true,
      value: [1, -7, 0.5, 12.25, 9007199254740991],
    });
  });

  it('keeps the last of duplicate keys and never touches the prototype', () => {
    const result = parsePythonJson('{"__proto__": {"polluted": true}, "a": 1, "a": 2, "x": NaN}');
    expect(result.ok).toBe(true);
    const value = (result as { value: Record<string, unknown> }).value;
    expect(value.a).toBe(2);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('nesting, as deep as CPython reads', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it(`reads ${String(MAX_JSON_NESTING)} levels`, () => {
    expect(parsePythonJson(nested(MAX_JSON_NESTING)).ok).toBe(true);
    expect(parsePythonJson(`{"a":${nested(MAX_JSON_NESTING - 1)}}`).ok).toBe(true);
  });

  it('refuses one more, as Python’s RecursionError does, brackets in strings aside', () => {
    expect(() => parsePythonJson(nested(MAX_JSON_NESTING + 1))).toThrow(RangeError);
    expect(() => parsePythonJson(nested(200_000))).toThrow(RangeError);
    expect(parsePythonJson(JSON.stringify(['['.repeat(5000), '\\"['.repeat(10)]))).toMatchObject({
      ok: true,
    });
  });
});

describe('nesting and syntax errors, in Python’s order', () => {
  it('reports a syntax error met before the limit as json_invalid', () => {
    expect(parsePythonJson(`[] ${'['.repeat(5000)}`)).toEqual({
      ok: false,
      msg: 'Extra data',
      pos: 3,
    });
    expect(parsePythonJson(`[1 x ${'['.repeat(5000)}`)).toMatchObject({ ok: false, pos: 3 });
  });

  it('gives up past the limit before a syntax error further in, as RecursionError does', () => {
    expect(() => parsePythonJson(`${'['.repeat(MAX_JSON_NESTING + 1)}x`)).toThrow(RangeError);
    expect(parsePythonJson(`${'['.repeat(MAX_JSON_NESTING)}x`)).toMatchObject({ ok: false });
  });
});
