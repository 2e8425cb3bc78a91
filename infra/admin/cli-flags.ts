import * as z from 'zod';
import { ROLES } from '#shared/groups/group.ts';
import { FILE_TYPES } from '#shared/domain/file-type.ts';
import { MAX_FILE_NAME_LENGTH } from '#shared/user-files/upload-limits.ts';

/**
 * The operator CLI's flags, as zod schemas: the single place that says what each accepts,
 * and whose messages name the flag and the value given.
 */
const required = (flag: string) => ({ error: `--${flag} is required` });

export const idFlag = (flag: string) =>
  z
    .string(required(flag))
    .refine((value) => /^[1-9][0-9]*$/.test(value) && Number.isSafeInteger(Number(value)), {
      error: (issue) => `--${flag} must be a positive integer, got "${String(issue.input)}"`,
    })
    .transform(Number);

export const nameFlag = (flag = 'name') =>
  z
    .string(required(flag))
    .refine((value) => value.trim() !== '', { error: `--${flag} must not be empty` })
    .refine((value) => Array.from(value).length <= MAX_FILE_NAME_LENGTH, {
      error: `--${flag} must be at most ${MAX_FILE_NAME_LENGTH} characters`,
    });

/** Whole seconds, up to 999,999; optional. */
export const secondsFlag = (flag: string) =>
  z
    .string()
    .refine((value) => /^[0-9]{1,6}$/.test(value), {
      error: (issue) => `--${flag} must be whole seconds, got "${String(issue.input)}"`,
    })
    .transform(Number)
    .optional();

/** Marks a flag that takes no value (`--dry-run`): present or absent. */
const SWITCH = { cliSwitch: true } as const;

/** A flag without a value: true when given. The CLI passes a given one as `"true"`. */
export const switchFlag = () =>
  z
    .literal('true')
    .optional()
    .transform((value) => value !== undefined)
    .meta(SWITCH);

export const isSwitch = (schema: unknown): boolean =>
  schema instanceof z.ZodType && schema.meta()?.cliSwitch === true;

const oneOf = (flag: string, values: readonly string[]) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined
      ? `--${flag} is required`
      : `--${flag} must be one of ${values.join(', ')}, got ${JSON.stringify(issue.input)}`,
});

export const roleFlag = z.enum(ROLES, oneOf('role', ROLES));
export const fileTypeFlag = z.enum(FILE_TYPES, oneOf('type', FILE_TYPES));
