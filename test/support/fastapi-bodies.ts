/**
 * FastAPI's answers as its clients parse them, written out once (from the reference the
 * parity suite records), so no test spells an enum message or a 404 body of its own.
 */
import type { z } from 'zod';
import type { DirectUploadTicketSchema } from '#shared/direct-uploads/api/direct-upload.ts';
import type { UserFileSchema } from '#shared/user-files/api/user-file.ts';

/** What the caller may not see. */
export const NOT_FOUND = { detail: 'Not Found' } as const;

/** API Gateway's JWT authorizer (and the local stage's) refusing a token. */
export const UNAUTHORIZED = { message: 'Unauthorized' } as const;

/** Pydantic's list of the file types, as its enum errors say it. */
const FILE_TYPES_EXPECTED =
  "'deck', 'financials', 'raw_data', 'snapshot', 'full', 'mini', 'nano' or 'other'";

/** Pydantic's enum error for a file type that is none of the contract's. */
export const fileTypeError = (loc: readonly (string | number)[], input: unknown) => ({
  type: 'enum',
  loc,
  msg: `Input should be ${FILE_TYPES_EXPECTED}`,
  input,
  ctx: { expected: FILE_TYPES_EXPECTED },
});

/** Pydantic's error for a required field that is absent (`input` is what held it). */
export const missingError = (loc: readonly (string | number)[], input: unknown = null) => ({
  type: 'missing',
  loc,
  msg: 'Field required',
  input,
});

/** FastAPI's 422 body for these errors. */
export const validationBody = (...errors: readonly unknown[]) => ({ detail: errors });

/** Response bodies, as the schemas that document them say (never redefined by a test). */
export type UserFileBody = z.output<typeof UserFileSchema>;
export type DirectUploadTicket = z.output<typeof DirectUploadTicketSchema>;
