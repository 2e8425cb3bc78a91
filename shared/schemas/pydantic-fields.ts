import * as z from 'zod';
import { plural } from '../http/pydantic-errors.ts';

/**
 * Zod fields that accept exactly what the contract's Pydantic models accepted in lax mode,
 * so a request FastAPI took is never refused here. Refusals become Pydantic errors in
 * `#shared/http/pydantic-errors.ts`.
 */

/** Pydantic's `clean_int_str`: trim, one sign, `_` between digits, a zero fraction. */
const INT_STRING = /^[+-]?\d+(?:_\d+)*(?:\.0+)?$/;

/** Pydantic v2 lax `int`: numeric strings, bools and whole floats become integers. */
export function laxInt(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (trimmed.length > 4300 || !INT_STRING.test(trimmed)) return value;
  // Beyond the safe range this is inexact, and z.int()'s range check refuses it.
  return Number(trimmed.replace(/_/g, '').replace(/\.0+$/, ''));
}

/** A Pydantic `int`; JavaScript holds it exactly only within the safe range. */
export const pyInt = () => z.preprocess(laxInt, z.int());

/** A Pydantic `int` with `gt=0`: every id in this service. */
export const pyPositiveInt = () => z.preprocess(laxInt, z.int().positive());

/** Python's `len(str)`: code points, not UTF-16 units and not graphemes. */
const codePoints = (value: string): number => Array.from(value).length;

/**
 * A Pydantic `str` with `max_length`, counted as Python counts: in code points, where zod's
 * `max` counts UTF-16 units.
 */
export const pyStr = (options: { minLength?: number; maxLength: number }) =>
  z
    .string()
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
