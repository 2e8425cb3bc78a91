/**
 * FastAPI parity: Pydantic's lax `int`, `bool` and `str` as zod fields. Mirrors pydantic-core
 * 2.46.5 `src/input/shared.rs` (`str_as_int`, `float_as_int`, `str_as_bool`, `int_as_bool`) and
 * Python's `len(str)` in code points for `max_length`.
 * Reference: Pydantic 2.13.5 (docs/fastapi-parity.md).
 */

import * as z from 'zod';
import { PYDANTIC_INT, plural } from './pydantic-errors.ts';
import { isRawNumber, rawNumberAsInt } from './python-number.ts';

/**
 * Zod fields that accept exactly what the contract's Pydantic models accepted in lax mode,
 * so a request FastAPI took is never refused here. Refusals become Pydantic errors in
 * `pydantic-errors.ts`.
 */

/** Pydantic's `clean_int_str`: trim, one sign, `_` between digits, a zero fraction. */
const INT_STRING = /^[+-]?\d+(?:_\d+)*(?:\.0+)?$/;

/**
 * Pydantic v2 lax `int`: numeric strings, bools and whole floats become integers, of any
 * size: a bigint beyond JavaScript's safe range. Anything else is left for the check to refuse.
 */
function laxInt(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (isRawNumber(value)) return rawNumberAsInt(value) ?? value;
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (trimmed.length > 4300 || !INT_STRING.test(trimmed)) return value;
  const digits = trimmed.replace(/_/g, '').replace(/\.0+$/, '');
  const number = Number(digits);
  return Number.isSafeInteger(number) ? number : BigInt(digits);
}

/** Pydantic's lax `int` for a bounded field: beyond the safe range, an inexact number is enough. */
const laxBoundedInt = (value: unknown): unknown => {
  const int = laxInt(value);
  return typeof int === 'bigint' ? Number(int) : int;
};

const isInt = (value: unknown): value is number | bigint =>
  typeof value === 'bigint' || Number.isSafeInteger(value);

/**
 * A Pydantic `int`, of any size: an id the client names. One beyond the safe range is a
 * bigint, which names nothing here (see `pyId`); its errors echo the client's digits.
 */
export const pyInt = () =>
  z
    .preprocess(laxInt, z.custom<number | bigint>(isInt, { params: PYDANTIC_INT }))
    // The check is opaque to the OpenAPI document; say the type there.
    .meta({ type: 'integer' });

/**
 * An id the client names: a Pydantic `int` of any size. We allocate ids (and the operator
 * CLI takes them) from 1 up within the safe range, so a larger one names nothing; it is
 * looked up as 0, which names nothing either, and gets the answer any unknown id gets.
 */
export const pyId = () =>
  z.preprocess(
    (value) => {
      const id = laxInt(value);
      return typeof id === 'bigint' ? 0 : id;
    },
    z.custom<number>(Number.isSafeInteger, { params: PYDANTIC_INT }),
  );

/**
 * A Pydantic `int` with `gt` and `le`: any size is read, and one beyond the bounds is refused
 * as Pydantic refuses it (`less_than_equal`, …), echoing the client's digits. Both bounds
 * lie in the safe range, so whatever lies beyond it breaks one of them.
 */
export const pyBoundedInt = (bounds: { readonly gt: number; readonly le: number }) =>
  z.preprocess(laxBoundedInt, z.int().gt(bounds.gt).lte(bounds.le));

/** Python's `len(str)`: code points, not UTF-16 units and not graphemes. */
const codePoints = (value: string): number => Array.from(value).length;

/**
 * A Pydantic `str` with `max_length`, counted as Python counts: in code points, where zod's
 * `max` counts UTF-16 units.
 */
export const pyStr = (options: { minLength?: number; maxLength: number }) =>
  z
    .string()
    // A lone surrogate (`"\ud800"` in JSON) is no text Python's str can be encoded from;
    // nothing downstream (DynamoDB, the chat) could hold it either.
    .check(
      z.refine((value) => value.isWellFormed(), {
        abort: true,
        params: {
          pydantic: {
            type: 'string_unicode',
            msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
          },
        },
      }),
    )
    .check(
      z.refine((value) => codePoints(value) >= (options.minLength ?? 0), {
        abort: true,
        params: {
          pydantic: {
            type: 'string_too_short',
            msg: `String should have at least ${plural(options.minLength ?? 0, 'character')}`,
            ctx: { min_length: options.minLength ?? 0 },
          },
        },
      }),
    )
    .check(
      z.refine((value) => codePoints(value) <= options.maxLength, {
        params: {
          pydantic: {
            type: 'string_too_long',
            msg: `String should have at most ${plural(options.maxLength, 'character')}`,
            ctx: { max_length: options.maxLength },
          },
        },
      }),
    )
    // The refinements are opaque to the OpenAPI document; say the limits there.
    .meta({
      ...(options.minLength === undefined ? {} : { minLength: options.minLength }),
      maxLength: options.maxLength,
    });

const FALSE_WORDS = /^(?:0|f|n|no|off|false)$/i;
const TRUE_WORDS = /^(?:1|t|y|on|yes|true)$/i;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** What Pydantic's lax `bool` makes of an int: 0 and 1 only; any other is unreadable. */
const intAsBool = (value: bigint): boolean | 'bool_parsing' =>
  value === 0n ? false : value === 1n ? true : 'bool_parsing';

/**
 * Pydantic v2's lax `bool`: the words of `str_as_bool` in any ASCII case (untrimmed), the
 * ints 0 and 1, and whole floats equal to them. Another int, word or whole float is
 * `bool_parsing`; anything else (a fraction, an int beyond i64, null, a list) `bool_type`.
 */
function laxBool(value: unknown): boolean | 'bool_parsing' | 'bool_type' {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (FALSE_WORDS.test(value)) return false;
    return TRUE_WORDS.test(value) ? true : 'bool_parsing';
  }
  // A plain number is an int, or a float whose fraction Python shows as JavaScript does.
  if (typeof value === 'number') {
    return Number.isInteger(value) ? intAsBool(BigInt(value)) : 'bool_type';
  }
  if (!isRawNumber(value)) return 'bool_type';
  const text = value.rawJSON;
  if (/[.eE]/.test(text)) {
    // A float becomes an int only when it is whole and within i64.
    const float = Number(text);
    if (!Number.isInteger(float) || Math.abs(float) >= 2 ** 63) return 'bool_type';
    return intAsBool(BigInt(float));
  }
  const int = BigInt(text);
  return int < I64_MIN || int > I64_MAX ? 'bool_type' : intAsBool(int);
}

const BOOL_ERRORS = {
  bool_parsing: 'Input should be a valid boolean, unable to interpret input',
  bool_type: 'Input should be a valid boolean',
} as const;

/** A Pydantic `bool`, read as FastAPI reads a JSON body's (lax): `"yes"`, `1` and `1.0` are true. */
export const pyBool = () =>
  z
    .unknown()
    .transform((value, ctx) => {
      const read = laxBool(value);
      if (typeof read === 'boolean') return read;
      ctx.issues.push({
        code: 'custom',
        input: value,
        params: { pydantic: { type: read, msg: BOOL_ERRORS[read] } },
      });
      return z.NEVER;
    })
    // The transform is opaque to the OpenAPI document; say the type there.
    .meta({ type: 'boolean' });
