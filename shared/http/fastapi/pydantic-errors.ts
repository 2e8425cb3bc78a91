/**
 * FastAPI parity: the entries of FastAPI's 422 `detail`. Mirrors Pydantic v2's
 * `ValidationError.errors(include_url=False)` as FastAPI returns them
 * (`fastapi/exception_handlers.py`, `request_validation_exception_handler`): each error type's
 * `msg` and `ctx` from pydantic-core 2.46.5 `src/errors/types.rs`, and the order and choice of
 * errors Pydantic reports for a list, a wrong type or a missing field.
 * Reference: FastAPI 0.142.2, Pydantic 2.13.5 (docs/fastapi-parity.md).
 */

import type { core } from 'zod';
import { isRawNumber } from './python-number.ts';

/** One entry of FastAPI's 422 `detail` list (Pydantic v2 `errors(include_url=False)`). */
export interface PydanticError {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly input: unknown;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

export type RequestSource = 'body' | 'path' | 'query' | 'header';

/** Pydantic's `expected_plural`: "1 item", "2 items". */
export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Pydantic's enum/literal wording: `'a', 'b' or 'c'`. */
function expectedValues(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1) ?? ''}`;
}

/** Issue params our own zod checks attach, for Pydantic error types zod has no code for. */
interface PydanticIssueParams {
  readonly pydantic: {
    readonly type: string;
    readonly msg: string;
    readonly ctx?: Readonly<Record<string, unknown>>;
  };
}

/** The params of a check that only an integer passes: its error is Pydantic's for an int. */
export const PYDANTIC_INT = { pydanticInt: true } as const;

const isPydanticInt = (params: unknown): boolean =>
  typeof params === 'object' && params !== null && 'pydanticInt' in params;

function isPydanticParams(params: unknown): params is PydanticIssueParams {
  return typeof params === 'object' && params !== null && 'pydantic' in params;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const missing = (loc: readonly (string | number)[], input: unknown): PydanticError => ({
  type: 'missing',
  loc,
  msg: 'Field required',
  input,
});

/** A body that is no object (a number kept in its Python form reaches no model). */
export const notAnObject = (input: unknown): PydanticError => ({
  type: 'model_attributes_type',
  loc: ['body'],
  msg: 'Input should be a valid dictionary or object to extract fields from',
  input,
});

/** Missing-field errors when a whole form or body is absent: FastAPI reports `input: null`. */
export const missingField = (loc: readonly (string | number)[]): PydanticError =>
  missing(loc, null);

/** Pydantic's str -> int parsing refuses strings longer than this outright. */
const MAX_INT_STRING_LENGTH = 4300;

function intError(loc: readonly (string | number)[], input: unknown): PydanticError {
  if (isRawNumber(input)) {
    // A number Python reads as an int of any size passes; a float fails for its fraction or
    // for being beyond any int.
    return Number.isInteger(Number(input.rawJSON))
      ? {
          type: 'int_parsing_size',
          loc,
          msg: 'Unable to parse input string as an integer, exceeded maximum size',
          input,
        }
      : { ...intError(loc, Number(input.rawJSON)), input };
  }
  if (typeof input === 'string') {
    return input.trim().length > MAX_INT_STRING_LENGTH
      ? {
          type: 'int_parsing_size',
          loc,
          msg: 'Unable to parse input string as an integer, exceeded maximum size',
          input,
        }
      : {
          type: 'int_parsing',
          loc,
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input,
        };
  }
  if (typeof input === 'number') {
    return Number.isFinite(input)
      ? {
          type: 'int_from_float',
          loc,
          msg: 'Input should be a valid integer, got a number with a fractional part',
          input,
        }
      : { type: 'finite_number', loc, msg: 'Input should be a finite number', input };
  }
  return { type: 'int_type', loc, msg: 'Input should be a valid integer', input };
}

function fromInvalidType(
  issue: core.$ZodIssueInvalidType,
  loc: readonly (string | number)[],
  input: unknown,
): PydanticError {
  switch (issue.expected) {
    case 'int':
    case 'number':
      return intError(loc, input);
    case 'string':
      return { type: 'string_type', loc, msg: 'Input should be a valid string', input };
    case 'array':
      return { type: 'list_type', loc, msg: 'Input should be a valid list', input };
    case 'boolean':
      return { type: 'bool_type', loc, msg: 'Input should be a valid boolean', input };
    case 'object':
      return { ...notAnObject(input), loc };
    default:
      return { type: `${issue.expected}_type`, loc, msg: issue.message, input };
  }
}

/** Pydantic's wording for the two sides of a length or bound check. */
const BOUNDS = {
  too_big: {
    list: 'too_long',
    string: 'string_too_long',
    words: 'at most',
    length: 'max_length',
    inclusive: ['less_than_equal', 'less than or equal to', 'le'],
    exclusive: ['less_than', 'less than', 'lt'],
  },
  too_small: {
    list: 'too_short',
    string: 'string_too_short',
    words: 'at least',
    length: 'min_length',
    inclusive: ['greater_than_equal', 'greater than or equal to', 'ge'],
    exclusive: ['greater_than', 'greater than', 'gt'],
  },
} as const;

function fromBound(
  issue: core.$ZodIssueTooBig | core.$ZodIssueTooSmall,
  loc: readonly (string | number)[],
  input: unknown,
): PydanticError {
  const side = BOUNDS[issue.code];
  const limit = Number(issue.code === 'too_big' ? issue.maximum : issue.minimum);
  if (issue.origin === 'array') {
    const actual = Array.isArray(input) ? input.length : 0;
    return {
      type: side.list,
      loc,
      msg: `List should have ${side.words} ${plural(limit, 'item')} after validation, not ${actual}`,
      input,
      ctx: { field_type: 'List', [side.length]: limit, actual_length: actual },
    };
  }
  if (issue.origin === 'string') {
    return {
      type: side.string,
      loc,
      msg: `String should have ${side.words} ${plural(limit, 'character')}`,
      input,
      ctx: { [side.length]: limit },
    };
  }
  const [type, words, key] = issue.inclusive === false ? side.exclusive : side.inclusive;
  return { type, loc, msg: `Input should be ${words} ${limit}`, input, ctx: { [key]: limit } };
}

/**
 * Maps one zod issue to the error Pydantic v2 reports for the same failure.
 * `root` is the raw value of the source (the parsed body, the path parameters), used for
 * the input of `missing` errors, which Pydantic sets to the enclosing object.
 */
function toPydanticError(
  issue: core.$ZodIssue,
  source: RequestSource,
  root: unknown,
): PydanticError {
  const loc = [source, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  if (issue.input === undefined && issue.path.length > 0) {
    return missing(loc, valueAt(root, issue.path.slice(0, -1)) ?? null);
  }
  // What the client sent, not what a lax conversion made of it: Pydantic echoes "0", not 0.
  const input = valueAt(root, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return fromInvalidType(issue, loc, input);
    case 'too_big':
    case 'too_small':
      return fromBound(issue, loc, input);
    case 'invalid_value': {
      const expected = expectedValues(issue.values);
      return issue.values.length === 1
        ? {
            type: 'literal_error',
            loc,
            msg: `Input should be ${expected}`,
            input,
            ctx: { expected },
          }
        : { type: 'enum', loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
    }
    case 'invalid_format':
      if (issue.format === 'regex' && issue.pattern !== undefined) {
        // JavaScript's RegExp source escapes `/`; the Python pattern FastAPI echoes does not.
        const pattern = issue.pattern.replace(/^\/(.*)\/[a-z]*$/s, '$1').replace(/\\\//g, '/');
        return {
          type: 'string_pattern_mismatch',
          loc,
          msg: `String should match pattern '${pattern}'`,
          input,
          ctx: { pattern },
        };
      }
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input };
    case 'custom':
      if (isPydanticInt(issue.params)) return intError(loc, input);
      if (isPydanticParams(issue.params)) {
        const { type, msg, ctx } = issue.params.pydantic;
        return ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx };
      }
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input };
    default:
      return { type: 'value_error', loc, msg: `Value error, ${issue.message}`, input };
  }
}

const isUnder = (path: readonly PropertyKey[], parent: readonly PropertyKey[]): boolean =>
  path.length > parent.length && parent.every((key, i) => path[i] === key);

/**
 * Pydantic checks a list's length around its items differently from zod: too many items
 * stop validation with `too_long` alone; item errors, when there are any, hide `too_short`;
 * and a value of the wrong type gets no length check at all.
 */
function asPydanticReports(issues: readonly core.$ZodIssue[]): core.$ZodIssue[] {
  const arrayIssues = (code: 'too_big' | 'too_small') =>
    issues.filter((i) => i.code === code && i.origin === 'array');
  const tooLong = arrayIssues('too_big');
  const tooShort = arrayIssues('too_small');
  const samePath = (a: readonly PropertyKey[], b: readonly PropertyKey[]) =>
    a.length === b.length && a.every((key, i) => b[i] === key);
  const wrongTypes = issues.filter((i) => i.code === 'invalid_type');
  return issues.filter((issue) => {
    // A value of the wrong type fails once; zod may still run a length check on it.
    if (issue.code !== 'invalid_type' && wrongTypes.some((w) => samePath(w.path, issue.path))) {
      return false;
    }
    if (tooLong.some((long) => isUnder(issue.path, long.path))) return false;
    if (tooShort.includes(issue)) return !issues.some((i) => isUnder(i.path, issue.path));
    return true;
  });
}

/**
 * zod's `int` adds a safe-range check of its own; Pydantic's ints have no range, so a field's
 * own bounds alone speak (see `pyBoundedInt`).
 */
const isSafeRangeCheck = (issue: core.$ZodIssue): boolean =>
  (issue.code === 'too_big' || issue.code === 'too_small') && issue.origin === 'int';

/** Every error Pydantic would report for these zod issues, in the order it reports them. */
export function toPydanticErrors(
  issues: readonly core.$ZodIssue[],
  source: RequestSource,
  root: unknown,
): PydanticError[] {
  return asPydanticReports(issues.filter((issue) => !isSafeRangeCheck(issue))).map((issue) =>
    toPydanticError(issue, source, root),
  );
}
